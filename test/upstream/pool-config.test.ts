import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configProblems } from '../support/config-problems.js';

// The connection pool never holds back what the bulkhead let through: unset, UPSTREAM_CONNECTIONS leaves the pool
// without a cap of its own; set, it may not be below UPSTREAM_MAX_IN_FLIGHT (tracing.test.ts shows why).

describe('UPSTREAM_CONNECTIONS', () => {
  it('is unset by default: the requests in flight bound the connections', () => {
    expect(loadConfig({}).UPSTREAM_CONNECTIONS).toBeUndefined();
  });

  it('is refused below UPSTREAM_MAX_IN_FLIGHT, naming both and the fix', () => {
    expect(configProblems({ UPSTREAM_CONNECTIONS: '64' }).join('\n')).toMatch(
      /UPSTREAM_CONNECTIONS \(64\) must be at least UPSTREAM_MAX_IN_FLIGHT \(128\), or unset/,
    );
    expect(configProblems({ UPSTREAM_CONNECTIONS: '16', UPSTREAM_MAX_IN_FLIGHT: '16' })).toEqual([]);
  });
});
