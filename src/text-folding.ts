// Text as the redactor compares it: ASCII letters in lower case, and the escapes a secret can travel in decoded
// to the character they stand for, wherever they appear and however many of them: JSON and JavaScript (`\u0074`,
// `\x74`, `\/`, with any number of backslashes, as a string escaped twice has), HTML character references
// (`&#116;`, `&#x74;`, `&sol;`) and percent-encoding (`%74`). An echo that escapes some characters of a secret
// and not others folds to the same text as the secret itself, so one comparison covers every mix.

/** Named character references for the ASCII characters a credential may contain (HTML5 names). */
const NAMED: Record<string, number> = {
  amp: 38,
  lt: 60,
  gt: 62,
  quot: 34,
  apos: 39,
  sol: 47,
  bsol: 92,
  plus: 43,
  equals: 61,
  percnt: 37,
  num: 35,
  dollar: 36,
  excl: 33,
  quest: 63,
  colon: 58,
  semi: 59,
  comma: 44,
  period: 46,
  lowbar: 95,
  ast: 42,
  lpar: 40,
  rpar: 41,
  lsqb: 91,
  rsqb: 93,
  lcub: 123,
  rcub: 125,
  verbar: 124,
  hat: 94,
  grave: 96,
  commat: 64,
};

export interface Folded {
  /** The folded text. */
  text: string;
  /**
   * Where each folded character starts in the source (one entry more, the source's length, at the end); null
   * when nothing was decoded and both line up.
   */
  starts: Int32Array | null;
}

const HAS_ESCAPE = /[\\&%]/;

/** A character code as folding compares it: ASCII upper case to lower case. */
export const foldCode = (code: number) => (code >= 65 && code <= 90 ? code | 32 : code);

function hexValue(text: string, from: number, length: number): number {
  if (from + length > text.length) return -1;
  let value = 0;
  for (let i = from; i < from + length; i++) {
    const c = text.charCodeAt(i) | 32;
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** `&#116;`, `&#x74;` (the semicolon is optional in numeric references, as browsers read them), `&sol;`. */
const REFERENCE = /^&(?:#[xX]([0-9a-fA-F]{1,6});?|#(\d{1,7});?|([A-Za-z]{2,6});)/;

/** The character reference at `at` (which holds `&`): its code and where it ends, or null. */
function reference(text: string, at: number): { code: number; end: number } | null {
  const match = REFERENCE.exec(text.slice(at, at + 12));
  if (!match) return null;
  const [whole, hex, decimal, name] = match;
  const code = hex !== undefined ? parseInt(hex, 16) : decimal !== undefined ? Number(decimal) : NAMED[name!.toLowerCase()];
  return code === undefined || code > 0xffff ? null : { code, end: at + whole.length };
}

/** Whether `fold` would decode anything in `text`: without escapes the folded text is the source lower-cased. */
export function mayHoldEscapes(text: string): boolean {
  return HAS_ESCAPE.test(text);
}

export function fold(text: string): Folded {
  // ASCII only: toLowerCase() would fold more letters, some into two characters, and the starts would drift.
  if (!mayHoldEscapes(text)) return { text: text.replace(/[A-Z]+/g, (run) => run.toLowerCase()), starts: null };
  const codes: number[] = [];
  const starts: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let code = c;
    let end = i + 1;
    if (c === 92) {
      // A run of backslashes: the escape is what follows the last of them; a run escaping nothing is dropped.
      let j = i;
      while (text.charCodeAt(j) === 92) j++;
      const next = text.charCodeAt(j) | 32;
      const u = next === 117 ? hexValue(text, j + 1, 4) : -1;
      const x = next === 120 ? hexValue(text, j + 1, 2) : -1;
      if (u >= 0) [code, end] = [u, j + 5];
      else if (x >= 0) [code, end] = [x, j + 3];
      else if (j < text.length) [code, end] = [text.charCodeAt(j), j + 1];
      else break;
    } else if (c === 37) {
      const byte = hexValue(text, i + 1, 2);
      if (byte >= 0) [code, end] = [byte, i + 3];
    } else if (c === 38) {
      const ref = reference(text, i);
      if (ref) [code, end] = [ref.code, ref.end];
    }
    codes.push(foldCode(code));
    starts.push(i);
    i = end;
  }
  starts.push(text.length);
  let out = '';
  for (const code of codes) out += String.fromCharCode(code);
  return { text: out, starts: Int32Array.from(starts) };
}
