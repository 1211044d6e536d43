import { describe, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configProblems } from '../support/config-problems.js';
import { createSecurity } from '../../src/security/security.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// How the gateway starts: refusals in production, and the open development mode that stays on loopback.

// The file's gateway, in production mode (for the introspection tests). Production mode needs an upstream:
// the test harness points the client at its sandbox itself.
const it = testWith({
  env: { NODE_ENV: 'production', LOG_LEVEL: 'silent', REWARD_API_URL: 'http://127.0.0.1:9/papi/v1', REWARD_API_TOKEN: 'unused', ...KEYS_ENV },
});

describe('production start-up refusals', () => {
  it('refuses to start without API keys or an upstream, and says why', () => {
    const problems = configProblems({ NODE_ENV: 'production' });
    expect(problems.join('\n')).toMatch(/GATEWAY_API_KEYS is required in production/);
    expect(problems.join('\n')).toMatch(/REWARD_API_URL is required in production/);
  });

  it('refuses an upstream URL without a token', () => {
    expect(configProblems({ NODE_ENV: 'production', REWARD_API_URL: 'https://api.example.com/papi/v1', ...KEYS_ENV }).join('\n')).toMatch(
      /REWARD_API_TOKEN is required/,
    );
  });

  it('refuses malformed keys without echoing them', () => {
    const problems = configProblems({ GATEWAY_API_KEYS: JSON.stringify([{ name: 'x', key: 'short-secret', scopes: ['rewards:read'] }]) });
    expect(problems.join('\n')).toMatch(/at least 24 characters/);
    expect(problems.join('\n')).not.toContain('short-secret');
    expect(configProblems({ GATEWAY_API_KEYS: '{not json' }).join('\n')).toMatch(/GATEWAY_API_KEYS is not valid JSON/);
    expect(configProblems({ GATEWAY_API_KEYS: JSON.stringify([{ name: 'x', key: 'k'.repeat(30), scopes: ['admin'] }]) }).join('\n')).toMatch(
      /scopes/,
    );
  });

  it('starts in production with keys, an upstream and its token', () => {
    expect(configProblems({ NODE_ENV: 'production', REWARD_API_URL: 'https://api.example.com/papi/v1', REWARD_API_TOKEN: 't', ...KEYS_ENV })).toEqual(
      [],
    );
  });
});

describe('development without keys', () => {
  it('grants every scope, binds to loopback whatever HOST says, and warns loudly', async () => {
    const security = createSecurity(loadConfig({ HOST: '0.0.0.0' }));
    expect(security.host).toBe('127.0.0.1');
    expect(security.warnings.join(' ')).toMatch(/NO GATEWAY API KEYS/);
    expect([...(await security.identify(null))!.scopes].sort()).toEqual([
      'funds:read',
      'funds:write',
      'rewards:read',
      'rewards:write',
      'webhooks:read',
      'webhooks:write',
    ]);
  });

  it('with keys, HOST is honoured and no warning is given', () => {
    const security = createSecurity(loadConfig({ HOST: '0.0.0.0', ...KEYS_ENV }));
    expect(security.host).toBe('0.0.0.0');
    expect(security.warnings).toEqual([]);
  });
});

describe('introspection and suggestions in production', () => {
  it('refuses introspection and does not suggest field names', async ({ gateway }) => {
    const intro = await gateway.gql('{ __schema { types { name } } }', {}, bearer(KEYS.reader));
    expect(intro.body.errors?.[0]?.message).toMatch(/introspection/i);
    const typo = await gateway.gql('{ regionz { id } }', {}, bearer(KEYS.reader));
    expect(typo.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
    const ok = await gateway.gql('{ regions { id } }', {}, bearer(KEYS.reader));
    expect(ok.body.data.regions.length).toBeGreaterThan(0);
  });

  it('refuses introspection over WebSocket too', async ({ gateway }) => {
    const { subscribeWs, wsClient } = await import('../support/live.js');
    const client = wsClient(await gateway.listen(), { connectionParams: bearer(KEYS.reader) });
    try {
      const stream = subscribeWs(client, '{ __schema { queryType { name } } }');
      await stream.ended;
      expect(JSON.stringify([stream.received, stream.error])).toMatch(/introspection/i);
    } finally {
      await client.dispose();
    }
  });

  it('does not serve GraphiQL', async ({ gateway }) => {
    const res = await gateway.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(await res.text()).not.toContain('reward-gateway');
  });
});

describe('the GraphiQL page is the only unauthenticated GET', () => {
  it('answers 401 to a GET that carries an operation, whatever it accepts', async ({ gatewayWith }) => {
    const gateway = await gatewayWith({ env: { ...KEYS_ENV, GRAPHIQL: 'false' } });
    const res = await gateway.fetch(`/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: 'text/html', 'x-graphql-yoga-csrf': '1' },
    });
    expect(res.status).toBe(401);
  });
});
