import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyStrengthBits, MIN_KEY_BITS } from '../../src/security/key-strength.js';
import { configProblems } from '../support/config-problems.js';

// A gateway key is a secret only if it cannot be guessed: in production one with under 128 bits of randomness
// (a date, a name, a word, a sequence) is refused at start, in one line saying how to make one. Outside
// production such keys still start (local set-ups, tests), as long as they are 24 characters or more.

const PRODUCTION = { NODE_ENV: 'production', REWARD_API_URL: 'https://api.example.com/papi/v1', REWARD_API_TOKEN: 't' };
const keysEnv = (...keys: string[]) => ({
  GATEWAY_API_KEYS: JSON.stringify(keys.map((key, i) => ({ name: `holder-${i}`, key, scopes: ['rewards:read'] }))),
});

/** Keys as people make them when nobody tells them how: every one is at least 24 characters long. */
const WEAK = [
  'acme-prod-2026-11-28-key',
  'thank-you-2026-11-28-0001',
  'reward-gateway-production-key',
  'AcmeRewardsProductionKey2026',
  'key-1764324000000-acme-rewards',
  'reader-key-0123456789abcdef0123',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  'correcthorsebatterystaplecorrecthorse',
];

/**
 * Keys made as the message says, or at random with room to spare. The estimate is cautious (key-strength.ts):
 * a random key of 128 to 192 bits holding a run of letters that reads like a word may fall short.
 */
const STRONG = [
  () => randomBytes(32).toString('base64'), // openssl rand -base64 32
  () => randomBytes(32).toString('hex'), // openssl rand -hex 32
  () => randomBytes(32).toString('base64url'),
  () => `gwk_live_${randomBytes(16).toString('hex')}`,
];

describe('gateway keys in production', () => {
  it.each(WEAK)('refuses %s in one line naming its holder, not the key, and how to make one', (key) => {
    const problems = configProblems({ ...PRODUCTION, ...keysEnv(key) });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^GATEWAY_API_KEYS: the key of "holder-0" is too weak .*`openssl rand -base64 32`$/);
    expect(problems[0]).not.toContain('\n');
    expect(problems[0]).not.toContain(key);
  });

  it('names every weak key in that one line', () => {
    const problems = configProblems({ ...PRODUCTION, ...keysEnv(WEAK[0]!, randomBytes(32).toString('base64'), WEAK[1]!) });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/holder-0.*holder-2/);
    expect(problems[0]).not.toMatch(/holder-1/);
  });

  it('takes keys made at random: each way 10,000 times, and through the configuration', () => {
    for (const make of STRONG) {
      for (let i = 0; i < 10_000; i++) {
        const key = make();
        expect(keyStrengthBits(key), key).toBeGreaterThanOrEqual(MIN_KEY_BITS);
      }
      expect(configProblems({ ...PRODUCTION, ...keysEnv(make(), make()) })).toEqual([]);
    }
  });

  it('starts outside production with a weak key of 24 characters', () => {
    expect(configProblems(keysEnv(WEAK[0]!))).toEqual([]);
  });
});
