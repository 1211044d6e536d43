import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

// An operation's name is the client's text, and the operation span carries it (its name and
// `graphql.operation.name`): an API key used as an operation name is blanked there as in logs and /metrics.
// In process: an in-memory exporter behind the global tracer provider, taken down after the file.

const KEY = `gwk_live_${randomBytes(16).toString('hex')}`;
const { exporter } = inMemoryTracing();

// Tracing on (an endpoint set); the SDK itself is main.ts's to start, so spans go to the provider above.
const it = testWith({
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
  keys: { holder: { name: 'holder', key: KEY, scopes: ['rewards:read'] } },
});

describe('the operation span', () => {
  it('names an operation named with an API key [redacted], and any other by its name', async ({ gateway }) => {
    for (const name of [KEY, 'Regions']) {
      const res = await gateway.gql(`query ${name} { __typename }`, {}, { authorization: `Bearer ${KEY}` });
      expect(res.body.data).toEqual({ __typename: 'Query' });
    }
    const operations = exporter.getFinishedSpans().filter((s) => s.attributes['graphql.operation.type'] === 'query');
    expect(operations.map((s) => [s.name, s.attributes['graphql.operation.name']])).toEqual([
      ['query [redacted]', '[redacted]'],
      ['query Regions', 'Regions'],
    ]);
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events]))).not.toContain(KEY.slice(-16));
  });
});
