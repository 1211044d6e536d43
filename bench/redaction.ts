import { randomBytes } from 'node:crypto';
import { createRedactor, redactValue } from '../src/redaction.js';

// The redactor's cost on the hot path, where text almost never holds a secret: every string of every GraphQL
// result, every log line, every /metrics scrape goes through it. Five secrets (an upstream token and four API
// keys, as in production), each input redacted until a second of CPU time has passed; the median of 5 such
// rounds. Compare each row with the JSON.stringify baseline measured in the same run.
// Usage: node --import tsx bench/redaction.ts

const TOKEN = randomBytes(24).toString('base64url');
const KEYS = Array.from({ length: 4 }, () => `gwk_live_${randomBytes(16).toString('hex')}`);
const { redact } = createRedactor([TOKEN, ...KEYS]);

const gift = (i: number) => ({
  uuid: `c0ffee00-1234-4abc-8def-${String(i).padStart(12, '0')}`,
  status: 'SENT_AND_REDEEMABLE',
  deliveryStatus: 'DELIVERED',
  recipientEmail: `recipient-${i}@example.com`,
  recipientName: 'Ada Lovelace',
  managementDashboardLink: `https://dashboard.example.com/gifts/${i}?tab=overview&lang=en%2DUS`,
  shortlink: `https://gift.example/r/${randomBytes(6).toString('hex')}`,
  message: 'Thank you for all your help this year! It has been a pleasure working with you.',
});
/** A campaign with 100 gifts, as a nested read returns it (about 40 KB of JSON). */
const result = {
  data: { campaign: { uuid: 'c-1', subject: 'Thank you', gifts: { edges: Array.from({ length: 100 }, (_, i) => ({ node: gift(i) })) } } },
};
const logLine = `${JSON.stringify({ level: 'info', time: new Date().toISOString(), service: 'reward-gateway', pid: 1, hostname: 'h', requestId: 'c0ffee00-1234-4abc-8def-000000000000', operationName: 'Campaign', operationType: 'query', outcome: 'ok', durationMs: 12, msg: 'operation completed' })}\n`;
const bigJson = JSON.stringify(result);
const withSecret = JSON.stringify({ ...result, leaked: `Bearer ${TOKEN}` });

const cases: [string, number, () => unknown][] = [
  // The baseline: what yoga spends anyway to send the same result.
  ['JSON.stringify of the result (baseline)', bigJson.length, () => JSON.stringify(result)],
  ['log line, no secret', logLine.length, () => redact(logLine)],
  ['result object, 100 gifts, no secret (redactValue)', bigJson.length, () => redactValue(result, redact)],
  ['JSON text, 100 gifts, no secret', bigJson.length, () => redact(bigJson)],
  ['JSON text, 100 gifts, one token', withSecret.length, () => redact(withSecret)],
];

/** CPU time per call, in µs: on a shared machine wall time mostly measures the neighbours. */
function round(run: () => unknown): number {
  let n = 0;
  const started = process.cpuUsage();
  const cpu = () => {
    const { user, system } = process.cpuUsage(started);
    return user + system;
  };
  while (cpu() < 1_000_000) {
    for (let i = 0; i < 100; i++) run();
    n += 100;
  }
  return cpu() / n;
}

for (const [name, bytes, run] of cases) {
  round(run);
  const rounds = Array.from({ length: 5 }, () => round(run)).sort((a, b) => a - b);
  const us = rounds[2]!;
  process.stdout.write(
    `${name.padEnd(50)} ${String(bytes).padStart(6)} chars  ${us.toFixed(2).padStart(8)} µs CPU  ${(bytes / us).toFixed(0).padStart(5)} chars/µs\n`,
  );
}
