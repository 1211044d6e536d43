import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { LOOKUP_COST, operationCost } from '../../src/security/operation-cost.js';
import { createLogger } from '../../src/ops/logger.js';
import { createRedactor } from '../../src/redaction/redaction.js';
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

  // Priced with the variables as execution will see them (graphql-js getVariableValues): a default stands in
  // for an absent variable, and a single value given for a list variable is a list of one.
  it('prices variables as coerced: defaults included, a single value for a list as a list of one', () => {
    const withDefault = parse(
      'query($n: Int = 100) { gifts(first: $n) { edges { node { campaign { gifts(first: $n) { edges { node { uuid } } } } } } } }',
    );
    expect(operationCost(schema, withDefault, null, {})).toBe(operationCost(schema, nested, null, { n: 100 }));
    expect(operationCost(schema, withDefault, null, { n: 3 })).toBe(operationCost(schema, nested, null, { n: 3 }));

    const refs = parse('query($refs: [ID!]! = ["a", "b", "c"]) { campaigns(refs: $refs) { id } }');
    const listed = parse('query($refs: [ID!]!) { campaigns(refs: $refs) { id } }');
    expect(operationCost(schema, refs, null, {})).toBe(operationCost(schema, listed, null, { refs: ['a', 'b', 'c'] }));
    expect(operationCost(schema, listed, null, { refs: 'a' })).toBe(operationCost(schema, listed, null, { refs: ['a'] }));
    expect(operationCost(schema, listed, null, { refs: ['a'] })).toBeGreaterThan(LOOKUP_COST);
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
