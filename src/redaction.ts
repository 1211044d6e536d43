// Keeps secrets (the upstream token, gateway API keys) out of any text that leaves the process: messages of
// upstream errors, log lines. An upstream that echoes the Authorization header may hand back the secret whole,
// cut short, base64-encoded (Basic-style, at any byte alignment) or percent-encoded; every run of 8 or more
// characters that also occurs in one of those forms is replaced. Shorter runs are common words and digits
// and say too little about the secret to be worth blanking (a secret shorter than that is blanked whole).

export const REDACTED = '[redacted]';
const MIN_RUN = 8;

/** The spellings under which `secret` can travel in text. */
export function formsOf(secret: string): string[] {
  const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  const bytes = Buffer.from(secret, 'utf8');
  // A secret inside a longer base64 payload ("Bearer <token>", "user:<token>") starts at any of three byte
  // offsets; each offset gives different characters. The characters that also encode the padding are dropped.
  for (const [pad, skip] of [
    [0, 0],
    [1, 2],
    [2, 3],
  ] as const) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes])
      .toString('base64')
      .replace(/=+$/, '')
      .slice(skip);
    forms.add(encoded);
    forms.add(encoded.replaceAll('+', '-').replaceAll('/', '_'));
  }
  for (const form of [...forms]) forms.add(form.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  // A short secret's base64 tails can be a character or two: matching those would blank ordinary text.
  return [...forms].filter((form) => form.length >= Math.min(MIN_RUN, secret.length));
}

interface Form {
  text: string;
  /** Every run of `run` characters in it: one set lookup per position of the scanned text. */
  grams: Set<string>;
  run: number;
}

function toForm(text: string): Form {
  const run = Math.min(MIN_RUN, text.length);
  const grams = new Set<string>();
  for (let i = 0; i + run <= text.length; i++) grams.add(text.slice(i, i + run));
  return { text, grams, run };
}

/** Marks in `text` every run of MIN_RUN+ characters that also occurs in `form`. */
function markRuns(text: string, { text: form, grams, run }: Form, marks: Uint8Array): void {
  for (let i = 0; i + run <= text.length; i++) {
    if (!grams.has(text.slice(i, i + run))) continue;
    let end = i + run;
    while (end < text.length && form.includes(text.slice(i, end + 1))) end++;
    marks.fill(1, i, end);
  }
}

export type Redact = (text: string) => string;

/**
 * A redactor for the given secrets. The set may grow later (the embedded sandbox's token is known only once
 * it runs); forms are worked out once per secret.
 */
export function createRedactor(secrets: Iterable<string>): Redact {
  const cache = new Map<string, Form[]>();
  return (text) => {
    if (text.length === 0) return text;
    const marks = new Uint8Array(text.length);
    let any = false;
    for (const secret of secrets) {
      if (!secret) continue;
      let forms = cache.get(secret);
      if (!forms) cache.set(secret, (forms = formsOf(secret).map(toForm)));
      for (const form of forms) markRuns(text, form, marks);
      any = true;
    }
    if (!any || !marks.includes(1)) return text;
    let out = '';
    for (let i = 0; i < text.length; i++) {
      if (!marks[i]) out += text[i];
      else if (i === 0 || !marks[i - 1]) out += REDACTED;
    }
    return out;
  };
}
