import { randomBytes } from 'node:crypto';
import { createRedactor, redactValue, type Redact } from '../src/redaction/redaction.js';
import { toGift } from '../src/upstream/normalise.js';
import type { WireGift } from '../src/upstream/wire.js';

// The redactor's cost where the gateway pays it, with text that almost never holds a secret. Five secrets (an
// upstream token and four API keys, as in production), each case run until a second of CPU time has passed;
// the median of 5 such rounds. Compare each row with the JSON.stringify baseline measured in the same run.
//
// A nested read's redaction is now the upstream's text of its gift pages, read into the gateway's types once
// per upstream answer (a cached read pays nothing); the walk over every string of a result that responses
// used to get (redactValue of the data, before issue 36) is kept as a row to compare with.
// Usage: node --import tsx bench/redaction.ts

const TOKEN = randomBytes(24).toString('base64url');
const KEYS = Array.from({ length: 4 }, () => `gwk_live_${randomBytes(16).toString('hex')}`);
const { redact } = createRedactor([TOKEN, ...KEYS]);
const asIs: Redact = (text) => text;

const wireGift = (i: number): WireGift => ({
  uuid: `c0ffee00-1234-4abc-8def-${String(i).padStart(12, '0')}`,
  campaign_uuid: 'c0ffee00-1234-4abc-8def-00000000c001',
  campaign_id: 'thank-you-2026-11-28-0001',
  status: 'SENT_AND_REDEEMABLE',
  delivery_status: 'DELIVERED',
  price_in_cents: 2500,
  brand_code: 'AMAZONUS',
  recipient_email: `recipient-${i}@example.com`,
  recipient_name: 'Ada Lovelace',
  redelivery_count: 0,
  created_date: new Date(1_764_324_000_000 + i * 1000),
  delivery_date: new Date(1_764_324_060_000 + i * 1000),
  redeemed_date: null,
  expiry: null,
  management_dashboard_link: `https://dashboard.example.com/gifts/${i}?tab=overview&lang=en%2DUS`,
  shortlink: `https://gift.example/r/${randomBytes(6).toString('hex')}`,
});
/** A page of 100 gifts as the upstream client reads it. */
const page = Array.from({ length: 100 }, (_, i) => wireGift(i));
const gift = (i: number) => {
  const g = toGift(page[i]!, asIs);
  return { ...g, message: 'Thank you for all your help this year! It has been a pleasure working with you.' };
};
/** A campaign with 100 gifts, as a nested read returns it (about 40 KB of JSON). */
const result = {
  data: {
    campaign: { uuid: 'c-1', subject: 'Thank you', gifts: { edges: Array.from({ length: 100 }, (_, i) => ({ cursor: `c${i}`, node: gift(i) })) } },
  },
};
const logLine = `${JSON.stringify({ level: 'info', time: new Date().toISOString(), service: 'reward-gateway', pid: 1, hostname: 'h', requestId: 'c0ffee00-1234-4abc-8def-000000000000', operationName: 'Campaign', operationType: 'query', outcome: 'ok', durationMs: 12, msg: 'operation completed' })}\n`;
const bigJson = JSON.stringify(result);
const pageJson = JSON.stringify(page);
const withSecret = JSON.stringify({ ...result, leaked: `Bearer ${TOKEN}` });

const cases: [string, number, () => unknown][] = [
  // The baseline: what yoga spends anyway to send the same result.
  ['JSON.stringify of the result (baseline)', bigJson.length, () => JSON.stringify(result)],
  ['log line, no secret', logLine.length, () => redact(logLine)],
  ['page of 100 gifts read, upstream text redacted', pageJson.length, () => page.map((g) => toGift(g, redact))],
  ['page of 100 gifts read, not redacted', pageJson.length, () => page.map((g) => toGift(g, asIs))],
  ['result data walked (redactValue, before issue 36)', bigJson.length, () => redactValue(result, redact)],
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
