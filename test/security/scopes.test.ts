import { getNamedType } from 'graphql';
import { describe, expect } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { uniqueId } from '../support/fixtures.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// keys.ts's keys, not apiKeys: an apiKeys key holds its holder's name, so the gateway's redaction of key
// fragments would mask the name in the FORBIDDEN message this suite checks word for word.
const it = testWith({ env: KEYS_ENV });

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { __typename } }`;
const createInput = () => ({
  id: uniqueId('scoped'),
  priceInCents: 1000,
  reward: { brand: 'sbxcoffeeus' },
  contacts: [{ email: 'someone@example.com' }],
  subject: 's',
  message: 'm',
});
const ADD_FUNDS = `mutation($input: AddFundsInput!) { addFunds(input: $input) { __typename } }`;
const fundsInput = () => ({ id: uniqueId('fund'), currency: 'USD', amountInCents: 25_000 });

describe('who may call at all', () => {
  it.for<[string, Record<string, string>]>([
    ['no Authorization header', {}],
    ['an unknown key', { authorization: 'Bearer not-a-configured-key-000000000' }],
    ['a key without the Bearer prefix', { authorization: KEYS.reader.key }],
  ])('%s is a 401 UNAUTHENTICATED and reaches nothing upstream', async ([, headers], { gateway }) => {
    await gateway.upstreamDelta();
    const res = await gateway.gql('{ viewer { username } }', {}, headers);
    expect(res.status).toBe(401);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await gateway.upstreamDelta()).toEqual({});
  });
});

describe('what each key may do (FORBIDDEN on the field only)', () => {
  it('rewards:read reads rewards but not funds, and cannot create', async ({ gateway }) => {
    const res = await gateway.gql('{ regions { name } funds { balances { currency } } }', {}, bearer(KEYS.reader));
    expect(res.body.data?.regions?.length).toBeGreaterThan(0);
    expect(res.body.data?.funds).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['funds'], extensions: { code: 'FORBIDDEN', missingScopes: ['funds:read'] } });
    expect(res.body.errors![0]!.message).toBe('The API key "dashboard" may not use Query.funds: it needs the scope funds:read.');

    await gateway.upstreamDelta();
    const create = await gateway.gql(CREATE, { input: createInput() }, bearer(KEYS.reader));
    expect(create.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', missingScopes: ['rewards:write'] });
    expect(create.body.errors?.[0]?.message).toMatch(/it needs the scope rewards:write\.$/);
    expect((await gateway.upstreamDelta())['POST /campaign'] ?? 0).toBe(0);
  });

  it('rewards:write creates, but does not top up', async ({ gateway }) => {
    const create = await gateway.gql(CREATE, { input: createInput() }, bearer(KEYS.writer));
    expect(create.body.data?.createCampaign?.__typename).toBe('CreateCampaignPayload');
    const add = await gateway.gql(ADD_FUNDS, { input: fundsInput() }, bearer(KEYS.writer));
    expect(add.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('a forbidden mutation with invalid input is still FORBIDDEN: authorization comes before validation', async ({ gateway }) => {
    const res = await gateway.gql(CREATE, { input: { ...createInput(), priceInCents: -1 } }, bearer(KEYS.reader));
    expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('funds:read reads funds only; funds:write tops up', async ({ gateway }) => {
    const read = await gateway.gql('{ funds { balances { currency } } brands { totalCount } }', {}, bearer(KEYS.fundsReader));
    expect(read.body.data?.funds?.balances.length).toBeGreaterThan(0);
    expect(read.body.errors?.map((e) => [e.path?.[0], e.extensions?.code])).toEqual([['brands', 'FORBIDDEN']]);
    const add = await gateway.gql(ADD_FUNDS, { input: fundsInput() }, bearer(KEYS.treasurer));
    expect(add.body.data?.addFunds?.__typename).toBe('AddFundsPayload');
  });
});

describe('the schema', () => {
  it('declares required scopes on every root field, so none is open by omission', () => {
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
    const open: string[] = [];
    for (const root of roots) {
      for (const field of Object.values(root?.getFields() ?? {})) {
        const config = field.extensions as { pothosOptions?: { authScopes?: unknown } };
        if (!config.pothosOptions?.authScopes) open.push(`${root!.name}.${field.name}`);
      }
    }
    expect(open).toEqual([]);
    expect(getNamedType(schema.getQueryType()!.getFields().node!.type).name).toBe('Node');
  });
});
