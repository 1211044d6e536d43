import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDifferential, type Answer, type Differential, type Request } from '../support/differential.js';
import type { FaultRule } from '../support/sandbox.js';
import { BASELINES, ODD_REQUESTS, variantsOf, type Baseline, type Variant } from './differential/hostile-corpus.js';

// Interpreted (graphql-js) and compiled (graphql-jit) execution answer every request alike: the same status,
// the same bytes, the same upstream requests. The corpus: every operation in operations/, every document the
// test suite sends through its gateways (suite-documents.json: each distinct `gql()` call of the suite,
// captured once, up to three variable sets per document), and hostile variants of baselines covering the
// shapes coercion depends on (differential/hostile-corpus.ts). And whatever graphql-js refuses never reaches
// the upstream.

let diff: Differential;
const stackTraceLimit = Error.stackTraceLimit;

beforeAll(async () => {
  // Most of the corpus is refused, each refusal a GraphQLError or two, and each error's stack is captured and
  // mapped through the source maps of vitest's module runner: at the default ten frames, a twentieth of this
  // file's CPU and as much again in garbage. Nothing here reads a stack; the worker's other files get the limit back.
  Error.stackTraceLimit = 2;
  diff = await startDifferential();
});
afterAll(async () => {
  Error.stackTraceLimit = stackTraceLimit;
  await diff?.close();
});

// Each operation of operations/ with variables that find the fixtures; its hostile variants come from them.
const OPERATIONS: Baseline[] = [
  {
    name: 'operations/campaign-dashboard.graphql',
    kind: 'read',
    query: readFileSync('operations/campaign-dashboard.graphql', 'utf8'),
    variables: (f) => ({ refs: [f.email.id, f.links.uuid, 'no-such-order'], giftsPerCampaign: 5 }),
  },
  {
    name: 'operations/brand-picker.graphql',
    kind: 'read',
    query: readFileSync('operations/brand-picker.graphql', 'utf8'),
    variables: () => ({ filter: { region: 'USA', minPriceInCents: 500 }, first: 3 }),
  },
  { name: 'operations/funds-widget.graphql', kind: 'read', query: readFileSync('operations/funds-widget.graphql', 'utf8'), variables: () => ({}) },
  // The operations an agent calls as MCP tools (docs/mcp.md).
  {
    name: 'operations/find-rewards.graphql',
    kind: 'read',
    query: readFileSync('operations/find-rewards.graphql', 'utf8'),
    variables: (f) => ({ recipientEmail: 'recipient0@example.com', orderUuid: f.email.uuid, status: 'SENT_AND_REDEEMABLE', first: 5 }),
  },
  {
    name: 'operations/get-reward.graphql',
    kind: 'read',
    query: readFileSync('operations/get-reward.graphql', 'utf8'),
    variables: (f) => ({ uuid: f.giftUuid }),
  },
  {
    name: 'operations/get-order.graphql',
    kind: 'read',
    query: readFileSync('operations/get-order.graphql', 'utf8'),
    variables: (f) => ({ ref: f.email.id, rewards: 5 }),
  },
  { name: 'operations/read-balances.graphql', kind: 'read', query: readFileSync('operations/read-balances.graphql', 'utf8'), variables: () => ({}) },
  {
    name: 'operations/resend-reward.graphql',
    kind: 'write',
    query: readFileSync('operations/resend-reward.graphql', 'utf8'),
    variables: (f) => ({ uuid: f.giftUuid }),
  },
  {
    name: 'operations/cancel-reward.graphql',
    kind: 'write',
    query: readFileSync('operations/cancel-reward.graphql', 'utf8'),
    variables: (f) => ({ uuid: f.giftUuid }),
  },
  {
    name: 'operations/create-reward.graphql',
    kind: 'write',
    query: readFileSync('operations/create-reward.graphql', 'utf8'),
    variables: () => ({
      input: { id: 'differential-create-reward', priceInCents: 1000, reward: { brand: 'sbxcoffeeus' }, contacts: [{ email: 'agent@example.com' }] },
    }),
  },
  {
    name: 'operations/add-funds.graphql',
    kind: 'write',
    query: readFileSync('operations/add-funds.graphql', 'utf8'),
    variables: () => ({ input: { id: 'differential-add-funds', currency: 'USD', amountInCents: 25_000 } }),
  },
];

const SUITE: Variant[] = (JSON.parse(readFileSync('test/graph/differential/suite-documents.json', 'utf8')) as Request[]).map((request, i) => ({
  name: `suite document ${i}: ${request.query.slice(0, 80)}`,
  kind: /^\s*mutation\b/.test(request.query) ? 'write' : 'read',
  request: () => request,
}));

/**
 * A write's answer with what the sandbox makes up numbered in order of first appearance: each side's create
 * happened in its own reset sandbox, so uuids, links and timestamps differ while everything else must not.
 */
function numberGenerated(text: string): string {
  const numbers = new Map<string, number>();
  return text.replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|https:\/\/[^"]*\/[a-z]\/[A-Za-z0-9_-]{16}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g,
    (value) => {
      if (!numbers.has(value)) numbers.set(value, numbers.size);
      return `<generated ${numbers.get(value)}>`;
    },
  );
}

/**
 * graphql-js refused the operation before running anything: a request error (parse, validation, variables; no
 * `data`), or an argument of the (first) root field that does not coerce. The gateway's own errors carry a code.
 */
function refusedByGraphql(answer: Answer): boolean {
  const body = JSON.parse(answer.text) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  if (!body.errors?.length) return false;
  return !('data' in body) || (body.data === null && body.errors.every((e) => !e.extensions?.code));
}

/** The upstream refused the parameters the gateway sent (not a business refusal such as an undeliverable email). */
const upstreamRefused = (answer: Answer) => answer.text.includes('(422 ERROR_INVALID_PARAMETERS)');

interface Outcome {
  variant: Variant;
  interpreted: Answer;
  compiled: Answer;
}

async function run(variants: Variant[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const variant of variants) {
    const [interpreted, compiled] = await (variant.kind === 'read' ? diff.read(variant.request) : diff.write(variant.request));
    if (variant.kind === 'write') {
      interpreted.text = numberGenerated(interpreted.text);
      compiled.text = numberGenerated(compiled.text);
    }
    outcomes.push({ variant, interpreted, compiled });
  }
  return outcomes;
}

function differences(outcomes: Outcome[]): string[] {
  const shown = ({ status, contentType, text, upstream }: Answer) => ({ status, contentType, text, upstream });
  return outcomes
    .filter(({ interpreted, compiled }) => JSON.stringify(shown(interpreted)) !== JSON.stringify(shown(compiled)))
    .map(
      ({ variant, interpreted, compiled }) =>
        `${variant.name}\n  interpreted ${JSON.stringify(shown(interpreted))}\n  compiled    ${JSON.stringify(shown(compiled))}`,
    );
}

/** The checks every group of the corpus passes; returns the outcomes graphql-js refused. */
function expectAlike(outcomes: Outcome[]): Outcome[] {
  expect(differences(outcomes)).toEqual([]);
  // Whatever graphql-js refuses causes no upstream request at all.
  const refused = outcomes.filter((o) => refusedByGraphql(o.interpreted));
  const reachedUpstream = refused.filter((o) => Object.keys(o.interpreted.upstream).length || Object.keys(o.compiled.upstream).length);
  expect(reachedUpstream.map((o) => `${o.variant.name}: ${JSON.stringify(o.compiled.upstream)}`)).toEqual([]);
  // What the gateway accepts, it checks as the upstream does: nothing it sends is refused as invalid.
  expect(outcomes.filter((o) => upstreamRefused(o.compiled)).map((o) => `${o.variant.name}: ${o.compiled.text}`)).toEqual([]);
  return refused;
}

describe('interpreted and compiled execution answer alike', () => {
  it('every operation in operations/ and its hostile variants', async () => {
    const files = readdirSync('operations').filter((file) => file.endsWith('.graphql'));
    expect(OPERATIONS.map((o) => o.name).sort()).toEqual(files.map((file) => `operations/${file}`).sort());
    const outcomes = await run(OPERATIONS.flatMap(variantsOf));
    const refused = expectAlike(outcomes);
    expect(outcomes.length - refused.length).toBeGreaterThan(3);
  });

  // In groups, so that a slow machine does not run one test for the whole corpus.
  const groups = Array.from({ length: Math.ceil(SUITE.length / 25) }, (_, i) => SUITE.slice(i * 25, (i + 1) * 25));
  it.each(groups.map((group, i) => [i * 25, i * 25 + group.length - 1, group] as const))(
    'the documents the test suite sends, %i to %i',
    async (_first, _last, group) => {
      expectAlike(await run(group));
    },
  );

  it.each(BASELINES.map((baseline) => [baseline.name, baseline] as const))('%s, and its hostile variants', async (_name, baseline) => {
    const outcomes = await run(variantsOf(baseline));
    const refused = expectAlike(outcomes);
    // Not vacuous: the baseline as it is goes through (and a write writes), and variants are refused.
    const [asIs] = outcomes;
    expect(refusedByGraphql(asIs!.interpreted), asIs!.interpreted.text).toBe(false);
    const wrote = Object.keys(asIs!.compiled.upstream).some((route) => !route.startsWith('GET '));
    expect(wrote, JSON.stringify(asIs!.compiled.upstream)).toBe(baseline.kind === 'write');
    expect(refused.length).toBeGreaterThan(0);
  });

  it('odd requests: two @oneOf members, variables that are not an object, unknown operations, …', async () => {
    const outcomes = await run(ODD_REQUESTS);
    expect(expectAlike(outcomes).length).toBeGreaterThan(10);
  });

  // The same corpus's baselines while the upstream fails: partial failures, typed errors and lost answers.
  const FAULTS: FaultRule[] = [
    { status: 503, rate: 1 },
    { status: 429, rate: 1 },
    { garble: true, rate: 1 },
    { reset: true, rate: 1 },
  ];
  it.each(FAULTS.map((rule) => [JSON.stringify(rule), rule] as const))('while every upstream call fails with %s', async (_name, rule) => {
    await diff.fault(rule);
    try {
      const asIs = [...OPERATIONS, ...BASELINES].map((baseline) => variantsOf(baseline)[0]!);
      const outcomes = await run(asIs);
      expectAlike(outcomes);
      // Not vacuous: the failures show.
      expect(outcomes.filter((o) => o.compiled.text.includes('"errors"') || o.compiled.text.includes('OutcomeUnknown')).length).toBeGreaterThan(10);
    } finally {
      await diff.clearFaults();
    }
  });

  it('the compiled side did run compiled', () => {
    const compiled = diff.compiled.logs.filter((line) => line.includes('"operation compiled"')).length;
    expect(compiled).toBeGreaterThan(50);
    expect(diff.interpreted.logs.filter((line) => line.includes('"operation compiled"'))).toEqual([]);
  });
});
