import type { Config } from './config.js';
import { formsOf, type SecretForm } from './secret-forms.js';
import { fold, foldCode, mayHoldEscapes } from './text-folding.js';

// The one redactor for everything that leaves the process: GraphQL responses (errors and data), log lines,
// /metrics, and whatever is added later (traces). It holds every secret (the upstream token, gateway API keys,
// and any other added later) and blanks, in any text, every run of 8 or more characters shared with a secret in
// one of its forms: as itself in any case and with any mix of percent, JSON and HTML escapes, and as hex or
// base64 (secret-forms.ts, text-folding.ts). Runs, not whole secrets: an echo cut short leaks as much.
//
// Cost. Most text holds no secret, so the scan is built to say so quickly: the forms of every secret are
// worked out once, and every window of the shortest run length they have is put in one table, together with a
// bitmap of the windows' rolling hashes. The scan slides a rolling hash over the text (the same folding, done
// on the fly for text without escapes), and only a position whose hash is in the bitmap costs a table lookup.
// Text with escapes is folded first (a copy). One pass whatever the number of secrets and forms.

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
  /** Where the window starts in the form. */
  offset: number;
}

interface Index {
  window: number;
  /** Multiplier of the character leaving the window. */
  leaving: number;
  bitmap: Uint32Array;
  windows: Map<string, Occurrence[]>;
}

const BASE = 0x01000193;
const BITMAP_BITS = 20;

function windowHash(text: string, from: number, length: number): number {
  let hash = 0;
  for (let i = from; i < from + length; i++) hash = (Math.imul(hash, BASE) + foldCode(text.charCodeAt(i))) | 0;
  return hash;
}

const bitOf = (hash: number) => hash >>> (32 - BITMAP_BITS);

function buildIndex(secrets: Iterable<string>): Index | null {
  const forms = [...secrets].flatMap(formsOf);
  if (forms.length === 0) return null;
  const window = Math.min(...forms.map((form) => form.minRun));
  let leaving = 1;
  for (let i = 1; i < window; i++) leaving = Math.imul(leaving, BASE);
  const bitmap = new Uint32Array(2 ** BITMAP_BITS / 32);
  const windows = new Map<string, Occurrence[]>();
  for (const form of forms) {
    for (let offset = 0; offset + window <= form.text.length; offset++) {
      const key = form.text.slice(offset, offset + window);
      const bit = bitOf(windowHash(key, 0, window));
      bitmap[bit >>> 5]! |= 1 << (bit & 31);
      let occurrences = windows.get(key);
      if (!occurrences) windows.set(key, (occurrences = []));
      occurrences.push({ form, offset });
    }
  }
  return { window, leaving, bitmap, windows };
}

/**
 * Calls `found(from, to)` for each run in `text` (folded, or without escapes: folded here on the fly), in order of
 * `from`; stops when it returns true.
 */
function scan({ window, leaving, bitmap, windows }: Index, text: string, found: (from: number, to: number) => boolean | void): void {
  if (text.length < window) return;
  let hash = windowHash(text, 0, window);
  for (let i = 0; ; i++) {
    const bit = bitOf(hash);
    if (bitmap[bit >>> 5]! & (1 << (bit & 31))) {
      for (const { form, offset } of windows.get(text.slice(i, i + window).replace(/[A-Z]+/g, (run) => run.toLowerCase())) ?? []) {
        let end = i + window;
        while (end < text.length && offset + end - i < form.text.length && foldCode(text.charCodeAt(end)) === form.text.charCodeAt(offset + end - i))
          end++;
        if (end - i >= form.minRun && found(i, end)) return;
      }
    }
    if (i + window >= text.length) return;
    hash = (Math.imul(hash - Math.imul(foldCode(text.charCodeAt(i)), leaving), BASE) + foldCode(text.charCodeAt(i + window))) | 0;
  }
}

/** The secrets configuration names: the upstream token (when set) and every gateway API key. */
export function configuredSecrets(config: Pick<Config, 'REWARD_API_TOKEN' | 'GATEWAY_API_KEYS'>): string[] {
  return [...(config.REWARD_API_TOKEN ? [config.REWARD_API_TOKEN] : []), ...(config.GATEWAY_API_KEYS ?? []).map((k) => k.key)];
}

export function createRedactor(secrets: Iterable<string> = []): Redactor {
  const known = new Set<string>();
  let index: Index | null = null;
  const add = (secret: string) => {
    if (!secret || known.has(secret)) return;
    known.add(secret);
    index = buildIndex(known);
  };
  for (const secret of secrets) add(secret);

  return {
    add,
    contains(text) {
      if (!index) return false;
      let found = false;
      scan(index, mayHoldEscapes(text) ? fold(text).text : text, () => (found = true));
      return found;
    },
    redact(text) {
      if (!index || text.length < index.window) return text;
      const folded = mayHoldEscapes(text) ? fold(text) : null;
      // Runs as [from, to) pairs in the scanned text, merged where they touch.
      const runs: number[] = [];
      scan(index, folded?.text ?? text, (from, to) => {
        const last = runs.length - 1;
        if (last > 0 && from <= runs[last]!) runs[last] = Math.max(runs[last]!, to);
        else runs.push(from, to);
      });
      if (runs.length === 0) return text;
      const at = (i: number) => (folded?.starts ? folded.starts[i]! : i);
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
