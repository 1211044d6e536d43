// The forms a secret can be echoed in, by an upstream reflecting its Authorization header or by a client: each
// encoding whole, several mixes of escapes, and copies cut short. Shared by the redactor's own suite and the
// suites that check none of them gets out of the gateway.

const percentAll = (text: string) => [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const unicodeEscaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const html = (text: string, spell: (code: number) => string) => [...text].map((c) => spell(c.charCodeAt(0))).join('');
const base64At = (text: string, prefix: string) => Buffer.from(prefix + text).toString('base64');
const base64urlAt = (text: string, prefix: string) => Buffer.from(prefix + text).toString('base64url');

export const FORMS: [string, (s: string) => string][] = [
  ['as is', (s) => s],
  ['upper-cased', (s) => s.toUpperCase()],
  ['lower-cased', (s) => s.toLowerCase()],
  ['percent-encoded (encodeURIComponent)', (s) => encodeURIComponent(s)],
  ['percent-encoded, every byte, upper-case hex', (s) => percentAll(s).toUpperCase()],
  ['percent-encoded, every byte, lower-case hex', (s) => percentAll(s)],
  ['base64', (s) => base64At(s, '')],
  ['base64 after 1 byte', (s) => base64At(s, ':')],
  ['base64 after 2 bytes', (s) => base64At(s, 'u:')],
  ['base64 of "Bearer <secret>"', (s) => base64At(s, 'Bearer ')],
  ['base64url', (s) => base64urlAt(s, '')],
  ['base64url after 1 byte', (s) => base64urlAt(s, 'x')],
  ['base64url after 2 bytes', (s) => base64urlAt(s, 'xy')],
  ['hex, lower case', (s) => Buffer.from(s).toString('hex')],
  ['hex, upper case', (s) => Buffer.from(s).toString('hex').toUpperCase()],
  ['JSON-escaped, every character \\uXXXX', (s) => unicodeEscaped(s)],
  ['JSON-escaped twice (\\\\uXXXX)', (s) => unicodeEscaped(s).replaceAll('\\', '\\\\')],
  ['JSON-escaped, only / + = (\\/ and \\u002b)', (s) => s.replaceAll('/', '\\/').replaceAll('+', '\\u002b').replaceAll('=', '\\u003D')],
  ['HTML decimal references', (s) => html(s, (c) => `&#${c};`)],
  ['HTML hex references', (s) => html(s, (c) => `&#x${c.toString(16).toUpperCase()};`)],
  ['HTML named references for / + =', (s) => s.replaceAll('/', '&sol;').replaceAll('+', '&plus;').replaceAll('=', '&equals;')],
  ['HTML and percent mixed', (s) => s.replace(/[a-m]/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[n-z]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)],
  // Cut to the shortest run that matters (docs/operations.md#secrets): 16 characters of the secret, as many
  // bytes in an encoding. Shorter runs are what secrets share with dates and ids, and are left alone.
  ['cut short: its first 16 characters', (s) => s.slice(0, 16)],
  ['cut short: its last 16 characters', (s) => s.slice(-16)],
  ['cut short: the first 22 characters of its base64 (16 bytes)', (s) => base64At(s, '').slice(0, 22)],
  ['cut short: the first 32 characters of its hex (16 bytes)', (s) => Buffer.from(s).toString('hex').slice(0, 32)],
];
