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
   * The shortest run of it that is blanked: enough to say something about the secret (8 of its characters, or
   * as many encoded characters as 8 bytes take), shorter runs being common in ordinary text.
   */
  minRun: number;
}

/** Characters of the secret itself in a run worth blanking (a shorter secret is blanked whole). */
const MIN_SECRET_RUN = 8;
const HEX_MIN_RUN = 16;
const BASE64_MIN_RUN = 11;

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
    [secret, MIN_SECRET_RUN],
    // Percent-encoding a non-ASCII character spells its UTF-8 bytes, which fold to one character each.
    [bytes.toString('latin1'), MIN_SECRET_RUN],
    // A secret holding an escape itself (a `%` or `\`) folds differently once escaped again.
    [encodeURIComponent(secret), MIN_SECRET_RUN],
    [JSON.stringify(secret).slice(1, -1), MIN_SECRET_RUN],
    [bytes.toString('hex'), HEX_MIN_RUN],
    ...base64Forms(bytes).map((form): [string, number] => [form, BASE64_MIN_RUN]),
  ];
  const forms = new Map<string, number>();
  for (const [text, minRun] of spelled) {
    const folded = fold(text);
    // A short secret's base64 tails can be a character or two: matching those would blank ordinary text.
    if (folded.length < Math.min(MIN_SECRET_RUN, secret.length)) continue;
    forms.set(folded, Math.min(minRun, folded.length, forms.get(folded) ?? Infinity));
  }
  return [...forms].map(([text, minRun]) => ({ text, minRun }));
}
