import type { ClusterSettings } from '../cluster/config.js';
import type { SecuritySettings } from '../security/config.js';
import type { UpstreamSettings } from '../upstream/config.js';
import { formsOf, type SecretForm } from './secret-forms.js';
import { decodedStarts, decodeEscapes, foldCode, mayHoldEscapes } from './text-folding.js';

// The one redactor of the gateway. It holds every secret (the upstream token, gateway API keys, and any other
// added later) and blanks, in the text it is given, a secret that appears whole and every run of it long enough
// to matter (16 characters, as many bytes in an encoding: secret-forms.ts) in any of its forms: as itself in
// any case and with any mix of percent, JSON and HTML escapes, and as hex or base64 (text-folding.ts). Runs,
// not whole secrets: an echo cut short leaks as much. It is given the text that may hold a secret: the
// upstream's free text where it enters (upstream/normalise.ts), the errors and extensions of responses, log
// lines, /metrics and operation span names; never the values the gateway makes or types itself
// (docs/operations.md#secrets), so that it cannot alter a value holding no secret.
//
// Cost. Most text holds no secret, so the scan is built to say so quickly: the forms of every secret are
// worked out once, and every gram of them (about half the shortest run) is put in one table, together with a
// bitmap of the grams' hashes. The scan hashes the gram at every few positions of the text (as many as a
// shortest run is sure to hold one gram at), folding case as it reads; only a hash in the bitmap costs a
// table lookup and a comparison with the forms holding a gram of that hash. Text shorter than the shortest run
// is not read, and text without a secret allocates nothing (a copy of each looked-up gram and a callback per
// string were most of the garbage of a nested read's redaction). Text with escapes is decoded first (a copy).
// One pass whatever the number of secrets and forms; where each decoded character came from is worked out
// only for text that turns out to hold a secret.

export const REDACTED = '[redacted]';

export type Redact = (text: string) => string;

export interface Redactor {
  /** `text` with every run of a secret blanked; `text` itself when it holds none. */
  redact: Redact;
  /** Whether `text` holds a run of a secret that `redact` would blank. */
  contains(text: string): boolean;
  /** Adds a secret: the embedded sandbox's token is known only once it runs; signing keys may come later. */
  add(secret: string): void;
}

interface Occurrence {
  form: SecretForm;
  /** Where the gram starts in the form. */
  offset: number;
}

interface Index {
  /** Length of the grams in the table. */
  gram: number;
  /** Distance between the positions of the text that are looked up. */
  stride: number;
  /** The shortest run blanked: shorter text cannot hold one. */
  shortest: number;
  bitmap: Uint32Array;
  /** Characters of a gram's start that the lead filter hashes: at most the gram. */
  lead: number;
  /** Bits of the hashes of every gram's first `lead` characters: small enough to stay in the CPU's nearest cache. */
  leads: Uint32Array;
  /**
   * Where each gram occurs in the forms, by its bit in the bitmap (grams sharing a bit share the entry): keyed
   * by the hash, a lookup needs no copy of the text's gram, and the comparison that follows checks it anyway.
   */
  grams: Map<number, Occurrence[]>;
}

const BASE = 0x01000193;
const BITMAP_BITS = 20;
const LEAD_CHARS = 3;
const LEAD_BITS = 16;

function gramBit(text: string, from: number, length: number): number {
  let hash = 0;
  for (let i = from; i < from + length; i++) hash = (Math.imul(hash, BASE) + foldCode(text.charCodeAt(i))) | 0;
  return hash >>> (32 - BITMAP_BITS);
}

/** The lead filter's bit for the `length` characters at `from` (case folded). */
function leadBit(text: string, from: number, length: number): number {
  let hash = 0;
  for (let i = from; i < from + length; i++) hash = (Math.imul(hash, BASE) + foldCode(text.charCodeAt(i))) | 0;
  return hash >>> (32 - LEAD_BITS);
}

function buildIndex(secrets: Iterable<string>): Index | null {
  const forms = [...secrets].flatMap(formsOf);
  if (forms.length === 0) return null;
  // Any run of `shortest` characters holds a whole gram starting at a multiple of the stride when
  // gram + stride - 1 <= shortest: looking up one position in `stride` is enough. About half and half.
  const shortest = Math.min(...forms.map((form) => form.minRun));
  const gram = Math.ceil((shortest + 1) / 2);
  const stride = shortest - gram + 1;
  const lead = Math.min(LEAD_CHARS, gram);
  const bitmap = new Uint32Array(2 ** BITMAP_BITS / 32);
  const leads = new Uint32Array(2 ** LEAD_BITS / 32);
  const grams = new Map<number, Occurrence[]>();
  for (const form of forms) {
    for (let offset = 0; offset + gram <= form.text.length; offset++) {
      const first = leadBit(form.text, offset, lead);
      leads[first >>> 5]! |= 1 << (first & 31);
      const bit = gramBit(form.text, offset, gram);
      bitmap[bit >>> 5]! |= 1 << (bit & 31);
      let occurrences = grams.get(bit);
      if (!occurrences) grams.set(bit, (occurrences = []));
      occurrences.push({ form, offset });
    }
  }
  return { gram, stride, shortest, bitmap, lead, leads, grams };
}

/**
 * The runs in `text` (escapes decoded; case is folded here, as it is read), as [from, to) pairs in no
 * particular order and maybe overlapping; only the first one when `first`. Null when there is none: text
 * without a secret allocates nothing.
 */
function scan({ gram, stride, bitmap, lead, leads, grams }: Index, text: string, first: boolean): number[] | null {
  let runs: number[] | null = null;
  for (let at = 0; at + gram <= text.length; at += stride) {
    // Most positions start no gram of a secret: their first few characters already say so, from a table
    // that stays in cache, before the whole gram is hashed and looked up in the big one.
    const start = leadBit(text, at, lead);
    if ((leads[start >>> 5]! & (1 << (start & 31))) === 0) continue;
    const bit = gramBit(text, at, gram);
    if ((bitmap[bit >>> 5]! & (1 << (bit & 31))) === 0) continue;
    for (const { form, offset } of grams.get(bit)!) {
      const secret = form.text;
      // Forward from the gram's start: the gram itself must match (the bit is shared by other grams), then as far
      // as text and form agree; backward likewise.
      let to = 0;
      while (at + to < text.length && offset + to < secret.length && foldCode(text.charCodeAt(at + to)) === secret.charCodeAt(offset + to)) to++;
      if (to < gram) continue;
      let from = 0;
      while (at + from > 0 && offset + from > 0 && foldCode(text.charCodeAt(at + from - 1)) === secret.charCodeAt(offset + from - 1)) from--;
      if (to - from < form.minRun) continue;
      (runs ??= []).push(at + from, at + to);
      if (first) return runs;
    }
  }
  return runs;
}

/** The secrets configuration names: the upstream token (when set) and every gateway API key. */
export function configuredSecrets(
  config: Pick<UpstreamSettings, 'REWARD_API_TOKEN'> &
    Pick<SecuritySettings, 'GATEWAY_API_KEYS'> &
    Pick<ClusterSettings, 'REDIS_PASSWORD' | 'REDIS_SENTINEL_PASSWORD'>,
): string[] {
  const passwords = [config.REWARD_API_TOKEN, config.REDIS_PASSWORD, config.REDIS_SENTINEL_PASSWORD].filter((s): s is string => Boolean(s));
  return [...passwords, ...(config.GATEWAY_API_KEYS ?? []).map((k) => k.key)];
}

export function createRedactor(secrets: Iterable<string> = []): Redactor {
  const known = new Set<string>([...secrets].filter(Boolean));
  let index = buildIndex(known);
  const add = (secret: string) => {
    if (!secret || known.has(secret)) return;
    known.add(secret);
    index = buildIndex(known);
  };

  return {
    add,
    contains(text) {
      if (!index || text.length < index.shortest) return false;
      return scan(index, mayHoldEscapes(text) ? decodeEscapes(text) : text, true) !== null;
    },
    redact(text) {
      // Decoding only shortens text: raw text shorter than the shortest run cannot hold one.
      if (!index || text.length < index.shortest) return text;
      const decoded = mayHoldEscapes(text) ? decodeEscapes(text) : text;
      const found = scan(index, decoded, false);
      if (!found) return text;
      const pairs: [number, number][] = [];
      for (let i = 0; i < found.length; i += 2) pairs.push([found[i]!, found[i + 1]!]);
      // Merged where they overlap or touch, as [from, to) pairs in the scanned text.
      const runs: number[] = [];
      for (const [from, to] of pairs.sort((a, b) => a[0] - b[0])) {
        const last = runs.length - 1;
        if (last > 0 && from <= runs[last]!) runs[last] = Math.max(runs[last]!, to);
        else runs.push(from, to);
      }
      const starts = decoded === text ? null : decodedStarts(text);
      const at = (i: number) => (starts ? starts[i]! : i);
      let out = '';
      let kept = 0;
      for (let r = 0; r < runs.length; r += 2) {
        out += text.slice(kept, at(runs[r]!)) + REDACTED;
        kept = at(runs[r + 1]!);
      }
      return out + text.slice(kept);
    },
  };
}

/** `value` with every string in it redacted; the very same value (no copy) when nothing changed. */
export function redactValue(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const clean = redactValue(value[i], redact);
      if (clean !== value[i]) (copy ??= value.slice())[i] = clean;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | null = null;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    const clean = redactValue(field, redact);
    if (clean !== field) (copy ??= { ...value })[key] = clean;
  }
  return copy ?? value;
}
