import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The identity variables refuse, at start-up, what would let a token in that should not get in.

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('identity configuration', () => {
  it('requires an audience with an issuer', () => {
    expect(problems({ AUTH_JWT_ISSUER: 'https://issuer.example' }).join('\n')).toMatch(/AUTH_JWT_AUDIENCE is required/);
    expect(problems({ AUTH_JWT_ISSUER: 'https://issuer.example', AUTH_JWT_AUDIENCE: 'api' })).toEqual([]);
  });

  it('refuses none and HMAC algorithms, whatever is set', () => {
    for (const algorithms of ['none', 'HS256', 'RS256,HS512']) {
      const found = problems({ AUTH_JWT_ISSUER: 'https://issuer.example', AUTH_JWT_AUDIENCE: 'api', AUTH_JWT_ALGORITHMS: algorithms });
      expect(found.join('\n'), algorithms).toMatch(/AUTH_JWT_ALGORITHMS/);
    }
  });

  it('refuses an API key named like a token caller, which would share its limits', () => {
    const keys = (name: string) => JSON.stringify([{ name, key: 'a-server-key-0123456789abcdef', scopes: ['funds:read'] }]);
    expect(problems({ GATEWAY_API_KEYS: keys('token:bob@https://issuer.example') }).join('\n')).toMatch(/must not start with "token:"/);
    expect(problems({ GATEWAY_API_KEYS: keys('tokens-service') })).toEqual([]);
  });

  it('needs an audience on every issuer of the list', () => {
    expect(problems({ AUTH_JWT_ISSUERS: JSON.stringify([{ issuer: 'https://a.example' }]) }).join('\n')).toMatch(/AUTH_JWT_ISSUERS/);
  });
});
