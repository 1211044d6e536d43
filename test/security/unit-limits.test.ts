import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCost } from '../../src/security/operation-cost.js';
import { createLogger } from '../../src/ops/logger.js';
import { createRedactor } from '../../src/redaction.js';
import { schema } from '../../src/schema/index.js';

describe('operation cost', () => {
  const nested = parse('query($n: Int) { gifts(first: $n) { edges { node { campaign { gifts(first: $n) { edges { node { uuid } } } } } } } }');

  it('counts an omitted or null page size as the default page size, as the resolvers do', () => {
    const explicit = operationCost(schema, nested, null, { n: 20 });
    expect(operationCost(schema, nested, null, {})).toBe(explicit);
    expect(operationCost(schema, nested, null, { n: null })).toBe(explicit);
    expect(operationCost(schema, parse('{ gifts(first: null) { totalCount edges { node { uuid } } } }'), null, {})).toBe(
      operationCost(schema, parse('{ gifts(first: 20) { totalCount edges { node { uuid } } } }'), null, {}),
    );
    expect(operationCost(schema, nested, null, { n: 100 })).toBeGreaterThan(explicit * 20);
  });
});

describe('log scrubbing', () => {
  it('removes a configured secret wherever it appears, with or without a Bearer prefix', () => {
    const lines: string[] = [];
    const key = 'bare-gateway-key-0123456789abcdef';
    const logger = createLogger({ level: 'info', redactor: createRedactor([key]), destination: { write: (line: string) => void lines.push(line) } });
    logger.info({ connectionParams: { token: key }, note: `sent ${key} raw` }, `saw ${key}`);
    expect(lines.join('')).not.toContain(key);
    expect(lines.join('')).toContain('saw');
  });
});
