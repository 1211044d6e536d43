// How much randomness a gateway API key holds, counted as someone guessing it would count it: the parts
// people put in keys (a date, a timestamp, a word or a name, a run like 0123 or aaaa) are worth what guessing
// them costs, not their length, and every other character what drawing it at random from its classes would
// be worth (26 lower-case letters, 26 upper-case, 10 digits, 33 other; 16 for hex digits).
//
// It is cautious: any run of three or more letters may be a word or a name and counts at most as one (17
// bits, a word among ~100,000), so a random key of exactly 128 bits may fall short where it holds such runs;
// `openssl rand -base64 32` (256 bits) never does. Without a dictionary it cannot tell "acme" from "qzkx", and
// a production key that is refused costs a minute, one that is guessed costs money. Used in production only
// (security/config.ts): local set-ups and tests keep their readable keys.

/** What a key must hold to be a secret: the strength of a 128-bit symmetric key. */
export const MIN_KEY_BITS = 128;

/** A word or a name among about 100,000, capitalised or not. */
const WORD_BITS = 17;
/** A day within two centuries (73,000 days); a time of that day adds a second among 86,400. */
const DATE_BITS = 16;
const TIME_BITS = 17;
/** A second within 30 years, and a millisecond of it. */
const TIMESTAMP_BITS = 30;
const MILLISECOND_BITS = 10;
/** A run like 0123, dcba or aaaa: its first character, its direction and its length. */
const RUN_BITS = 10;
const MIN_RUN = 4;

interface Predictable {
  pattern: RegExp;
  bits(match: string): number;
}

const digitsIn = (text: string) => text.replace(/\D/g, '').length;

/** Dates and timestamps, looked for first: 20260123 is a date, not a run. */
const MOMENTS: Predictable[] = [
  {
    // 2026-11-28, 20261128, 2026/11/28T10:00, 2026-11-28_10-00-00
    pattern: /(?:19|20)\d\d([-_./]?)(?:0[1-9]|1[0-2])\1(?:0[1-9]|[12]\d|3[01])(?:[T _.-]?(?:[01]\d|2[0-3])[:._-]?[0-5]\d(?:[:._-]?[0-5]\d)?)?/g,
    bits: (match) => DATE_BITS + (digitsIn(match) > 8 ? TIME_BITS : 0),
  },
  // 28-11-2026, 11/28/2026
  { pattern: /(?:[0-3]\d)([-_./])(?:[0-3]\d)\1(?:19|20)\d\d/g, bits: () => DATE_BITS },
  // Unix time in seconds or milliseconds, 2017 to 2033.
  { pattern: /(?<!\d)1[5-9]\d{8}(?:\d{3})?(?!\d)/g, bits: (match) => TIMESTAMP_BITS + (match.length > 10 ? MILLISECOND_BITS : 0) },
];

/** Words and names, looked for after runs (abcd is a run); letters that do not read like one count as random. */
const WORDS: Predictable = { pattern: /[A-Z]?[a-z]{3,}|[A-Z]{3,}/g, bits: (match) => (wordLike(match) ? WORD_BITS : Infinity) };

/**
 * Whether letters read like a word or a name of a language written in Latin letters: a vowel (y counts) in
 * every four letters after the first, and never five consonants in a row. Random letters mostly fail it (a
 * vowel is 6 letters in 26); "thank", "production", "acme", "Rewards" pass.
 */
function wordLike(letters: string): boolean {
  const vowels = letters.replace(/[^aeiouy]/gi, '').length;
  return vowels * 4 >= letters.length - 1 && !/[^aeiouy]{5}/i.test(letters);
}

/** Runs of MIN_RUN or more characters each one more, one less or the same as the one before: [from, to) pairs. */
function steadyRuns(key: string): [number, number][] {
  const runs: [number, number][] = [];
  let from = 0;
  let step = Number.NaN;
  for (let i = 1; i <= key.length; i++) {
    const next = i < key.length ? key.charCodeAt(i) - key.charCodeAt(i - 1) : Number.NaN;
    if (Math.abs(next) <= 1 && (i - from === 1 || next === step)) {
      step = next;
      continue;
    }
    if (i - from >= MIN_RUN) runs.push([from, i]);
    // The last character of a run may start the next one (0123 then 3210).
    const steady = Math.abs(next) <= 1;
    from = steady ? i - 1 : i;
    step = steady ? next : Number.NaN;
  }
  return runs;
}

/** Bits per character drawn at random from the classes these characters use. */
function bitsPerCharacter(chars: string): number {
  const lower = /[a-z]/.test(chars);
  const upper = /[A-Z]/.test(chars);
  const digits = /\d/.test(chars);
  const other = /[^a-zA-Z\d]/.test(chars);
  // Hex, in either case, has six letters.
  const hex = !/[g-zG-Z]/.test(chars) && !(lower && upper);
  const pool = (lower ? (hex ? 6 : 26) : 0) + (upper ? (hex ? 6 : 26) : 0) + (digits || (hex && (lower || upper)) ? 10 : 0) + (other ? 33 : 0);
  return Math.log2(Math.max(pool, 1));
}

/** The bits of randomness `key` holds, as estimated above. */
export function keyStrengthBits(key: string): number {
  const taken = new Uint8Array(key.length);
  // The alphabet the key was drawn from is the whole key's: taking a word out does not make the rest digits.
  const perCharacter = bitsPerCharacter(key);
  let bits = 0;
  /** A part worth `worth` bits, or what its characters are worth at random when that is less. */
  const take = (from: number, to: number, worth: number) => {
    for (let i = from; i < to; i++) if (taken[i]) return;
    taken.fill(1, from, to);
    bits += Math.min(worth, (to - from) * perCharacter);
  };
  const find = ({ pattern, bits: worth }: Predictable) => {
    for (const m of key.matchAll(pattern)) take(m.index, m.index + m[0].length, worth(m[0]));
  };
  MOMENTS.forEach(find);
  for (const [from, to] of steadyRuns(key)) take(from, to, RUN_BITS);
  find(WORDS);
  let rest = 0;
  for (let i = 0; i < key.length; i++) if (!taken[i]) rest++;
  return bits + rest * perCharacter;
}
