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

const ESCAPES = /[\\&%]/g;

/**
 * Whether `text` may hold an escape: without one it is compared as it is, folding case on the fly. Three
 * searches for one character each: about half the CPU of testing /[\\&%]/, asked of every text redacted.
 */
export function mayHoldEscapes(text: string): boolean {
  return text.includes('\\') || text.includes('%') || text.includes('&');
}

/**
 * The escape starting at `at` (a `\`, `%` or `&`): the code it stands for (-1 for nothing) and where it ends;
 * null when it is no escape (a lone `%` or `&`).
 */
function escapeAt(text: string, at: number): { code: number; end: number } | null {
  const c = text.charCodeAt(at);
  if (c === 37) {
    const byte = hexValue(text, at + 1, 2);
    return byte < 0 ? null : { code: byte, end: at + 3 };
  }
  if (c === 38) return reference(text, at);
  // A run of backslashes (a string escaped twice has two): the escape is what follows the last of them.
  let j = at;
  while (text.charCodeAt(j) === 92) j++;
  if (j === text.length) return { code: -1, end: j };
  const next = text.charCodeAt(j) | 32;
  const u = next === 117 ? hexValue(text, j + 1, 4) : -1;
  if (u >= 0) return { code: u, end: j + 5 };
  const x = next === 120 ? hexValue(text, j + 1, 2) : -1;
  if (x >= 0) return { code: x, end: j + 3 };
  return { code: text.charCodeAt(j), end: j + 1 };
}

/** `text` with every escape decoded; `text` itself when it has none. Case is folded by whoever compares. */
export function decodeEscapes(text: string): string {
  let out = '';
  let kept = 0;
  ESCAPES.lastIndex = 0;
  for (let match = ESCAPES.exec(text); match !== null; match = ESCAPES.exec(text)) {
    const escape = escapeAt(text, match.index);
    if (!escape) continue;
    out += text.slice(kept, match.index);
    if (escape.code >= 0) out += String.fromCharCode(escape.code);
    kept = ESCAPES.lastIndex = escape.end;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * Where each character of `decodeEscapes(text)` starts in `text`, then `text.length`: worked out only for
 * text that holds a secret, to blank the source characters a run was decoded from.
 */
export function decodedStarts(text: string): Int32Array {
  const starts = new Int32Array(text.length + 1);
  let n = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    const escape = c === 92 || c === 37 || c === 38 ? escapeAt(text, i) : null;
    if (escape?.code !== -1) starts[n++] = i;
    i = escape?.end ?? i + 1;
  }
  starts[n] = text.length;
  return starts.subarray(0, n + 1);
}

/** `text` as the redactor compares it: escapes decoded, ASCII case folded (toLowerCase() folds more letters). */
export function fold(text: string): string {
  return decodeEscapes(text).replace(/[A-Z]+/g, (run) => run.toLowerCase());
}
