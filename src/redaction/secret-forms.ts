import { fold } from './text-folding.js';

// The spellings under which a secret can travel in text, as the redactor compares them (folded: see
// text-folding.ts, which already covers upper case and every mix of percent, JSON and HTML escapes). Left are
// the encodings of its bytes: hex, and base64 in both alphabets at each of the three byte alignments (inside a
// longer payload such as "Bearer <token>" or "user:<token>" the secret starts at any offset, and each offset
// gives different characters).

export interface SecretForm {
  /** Folded. */
  text: string;
  /**
   * The shortest run of it that is blanked: as many characters as MATTERING_RUN characters of the secret take
   * in this form, or the whole form when that is shorter.
   */
  minRun: number;
}

/**
 * Characters of a secret in a run long enough to matter: 16, or the whole secret when it is shorter. Shorter
 * runs are what secrets share with ordinary values: a date is 10 characters, `-2026-11-28-` 12, a year and a
 * month of a timestamp fewer, so a key made from a date or a name must not blank those wherever they appear.
 * What is left unblanked of a long secret is at most 15 characters of it, and none of a short one.
 */
const MATTERING_RUN = 16;

/** Hex spells a byte (an ASCII character) in two characters, base64 three bytes in four. */
const HEX_PER_CHAR = 2;
const base64Chars = (bytes: number) => Math.ceil((bytes * 4) / 3);

function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  // [leading bytes, characters that also encode those bytes and so differ with them]
  for (const [pad, skip] of [
    [0, 0],
    [1, 2],
    [2, 3],
  ] as const) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes])
      .toString('base64')
      .replace(/=+$/, '')
      .slice(skip);
    // Folding lower-cases it, so the URL-safe alphabet is all that is left to spell.
    forms.push(encoded, encoded.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
}

export function formsOf(secret: string): SecretForm[] {
  const bytes = Buffer.from(secret, 'utf8');
  const spelled: [string, number][] = [
    [secret, MATTERING_RUN],
    // Percent-encoding a non-ASCII character spells its UTF-8 bytes, which fold to one character each.
    [bytes.toString('latin1'), MATTERING_RUN],
    // A secret holding an escape itself (a `%` or `\`) folds differently once escaped again.
    [encodeURIComponent(secret), MATTERING_RUN],
    [JSON.stringify(secret).slice(1, -1), MATTERING_RUN],
    [bytes.toString('hex'), MATTERING_RUN * HEX_PER_CHAR],
    ...base64Forms(bytes).map((form): [string, number] => [form, base64Chars(MATTERING_RUN)]),
  ];
  const forms = new Map<string, number>();
  for (const [text, minRun] of spelled) {
    const folded = fold(text);
    // A short secret's base64 tails can be a character or two: matching those would blank ordinary text.
    if (folded.length < Math.min(MATTERING_RUN, secret.length)) continue;
    forms.set(folded, Math.min(minRun, folded.length, forms.get(folded) ?? Infinity));
  }
  return [...forms].map(([text, minRun]) => ({ text, minRun }));
}
