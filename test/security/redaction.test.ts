import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactValue } from '../../src/redaction/redaction.js';
import { FORMS } from './secret-forms.js';

// The redactor on its own: every form a secret can be echoed in is blanked, in any text, and text holding no
// secret comes back as it was (the same string).

const SECRET = `Tk/${randomBytes(18).toString('base64url')}+v=`;
const KEY = `gwk_live_${randomBytes(16).toString('hex')}`;

describe('createRedactor', () => {
  const redactor = createRedactor([SECRET, KEY]);

  for (const [name, encode] of FORMS) {
    it(`blanks a secret ${name}, inside other text`, () => {
      for (const secret of [SECRET, KEY]) {
        const leak = encode(secret);
        const text = `before ${leak} after`;
        const clean = redactor.redact(text);
        expect(clean, leak).not.toContain(leak);
        expect(clean).toMatch(/^before .*\[redacted\].* after$/);
        expect(redactor.contains(text)).toBe(true);
        // Nothing is left that a second pass would find, and no 8 characters of the secret itself in any case: an
        // echo is blanked whole, not down to the shortest run that matters.
        expect(redactor.contains(clean)).toBe(false);
        for (let i = 0; i + 8 <= secret.length; i++) expect(clean.toLowerCase()).not.toContain(secret.slice(i, i + 8).toLowerCase());
      }
    });
  }

  it('blanks every occurrence and leaves the text around them', () => {
    const text = `a=${SECRET}&b=${encodeURIComponent(KEY)}\n"${Buffer.from(SECRET).toString('base64')}"`;
    expect(redactor.redact(text)).toBe(`a=${REDACTED}&b=${REDACTED}\n"${REDACTED}"`);
  });

  it('returns text holding no secret as it was, escapes and all', () => {
    const texts = [
      '',
      'short',
      'Thank you for all your help this year! &amp; see https://example.com/a%20b?x=1&y=2',
      '{"message":"line\\nbreak \\u00e9t\\u00e9 \\\\ done"}',
      `uuids ${'c0ffee00-1234-4abc-8def-0123456789ab '.repeat(50)}`,
      SECRET.slice(0, 7),
    ];
    for (const text of texts) {
      expect(redactor.redact(text)).toBe(text);
      expect(redactor.contains(text)).toBe(false);
    }
  });

  it('takes secrets added later, such as the embedded sandbox token once it runs', () => {
    const later = createRedactor();
    const token = randomBytes(24).toString('base64url');
    expect(later.redact(`token ${token}`)).toBe(`token ${token}`);
    later.add(token);
    expect(later.redact(`token ${token}`)).toBe(`token ${REDACTED}`);
    expect(later.redact(`token ${Buffer.from(token).toString('hex')}`)).toBe(`token ${REDACTED}`);
  });

  it('blanks a secret shorter than 16 characters whole, and only whole', () => {
    const short = createRedactor(['s3cr3t']);
    expect(short.redact('x s3cr3t y S3CR3T')).toBe(`x ${REDACTED} y ${REDACTED}`);
    expect(short.redact('x s3cr3 y')).toBe('x s3cr3 y');
  });

  it('finds secrets whose grams are shorter than the lead filter reads, at every position', () => {
    // A two-character secret has grams of two characters: the filter of the grams' first characters reads two.
    const tiny = createRedactor(['q7', 'a-secret-of-twenty-chars']);
    for (let at = 0; at < 6; at++) {
      expect(tiny.redact(`${'.'.repeat(at)}Q7${'.'.repeat(5 - at)}`)).toBe(`${'.'.repeat(at)}${REDACTED}${'.'.repeat(5 - at)}`);
      expect(tiny.redact(`${'x'.repeat(at)}A-SECRET-of-twenty-chars`)).toBe(`${'x'.repeat(at)}${REDACTED}`);
    }
    expect(tiny.redact('q-7 q 7')).toBe('q-7 q 7');
  });
});

describe('redactValue', () => {
  const { redact } = createRedactor([KEY]);

  it('redacts every string of a value, at any depth, copying only what changed', () => {
    const untouched = { list: [{ name: 'a' }], n: 1 };
    const value = { untouched, gifts: [{ message: `hi ${KEY}`, link: `https://x/?k=${encodeURIComponent(KEY)}` }, null, 3, true] };
    const clean = redactValue(value, redact) as typeof value;
    expect(clean).toEqual({ untouched, gifts: [{ message: `hi ${REDACTED}`, link: `https://x/?k=${REDACTED}` }, null, 3, true] });
    expect(clean.untouched).toBe(untouched);
    expect(value.gifts[0]).toEqual({ message: `hi ${KEY}`, link: `https://x/?k=${encodeURIComponent(KEY)}` });
    expect(redactValue(untouched, redact)).toBe(untouched);
  });

  it('keeps a field named __proto__ a field', () => {
    const clean = redactValue(JSON.parse(`{"__proto__": "${KEY}", "other": 1}`), redact);
    expect(JSON.stringify(clean)).toBe(`{"__proto__":"${REDACTED}","other":1}`);
  });
});
