import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { testWith } from '../support/test.js';

// Money is whole cents in one 53-bit-safe scalar: a balance past 2^31 cents ($21,474,836.48) reads, and a
// top-up that crosses that line is answered (and replayed) as the success it was upstream.

const LINE = 2 ** 31;
const START = LINE - 100_000;

const it = testWith({ sandboxOptions: { balances: { USD: START } } });

const ADD = `mutation($input: AddFundsInput!) { addFunds(input: $input) {
  __typename
  ... on AddFundsPayload { funds { balance(currency: "USD") { availableInCents } } }
  ... on Error { message }
} }`;

describe('money beyond 2^31 cents', () => {
  it('a top-up crossing 2^31 cents is answered once as a success, a replay answers the same, and funds reads it', async ({ gateway, sandbox }) => {
    const id = uniqueId('topup');
    const input = { id, currency: 'USD', amountInCents: 500_000 };
    const first = await gateway.gql(ADD, { input });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.addFunds).toEqual({
      __typename: 'AddFundsPayload',
      funds: { balance: { availableInCents: START + 500_000 } },
    });
    const replay = await gateway.gql(ADD, { input });
    expect(replay.body.errors).toBeUndefined();
    expect(replay.body.data.addFunds.funds.balance.availableInCents).toBe(START + 500_000);
    expect((await sandbox.control.stats()).creates[id]).toBe(1);

    const read = await gateway.gql('{ funds { balances { currency availableInCents pendingInCents reservedInCents } } }');
    expect(read.body.errors).toBeUndefined();
    const usd = read.body.data.funds.balances.find((b: { currency: string }) => b.currency === 'USD');
    expect(usd.availableInCents).toBe(START + 500_000);
    expect(usd.availableInCents).toBeGreaterThan(LINE);
  });

  it('money inputs take amounts past 2^31 and refuse fractions and unsafe integers with a clear error', async ({ gateway }) => {
    const big = await gateway.gql('query($min: SafeInt) { brands(filter: { minPriceInCents: $min }) { totalCount } }', { min: LINE + 1 });
    expect(big.body.errors).toBeUndefined();
    expect(big.body.data.brands.totalCount).toBe(0);

    const fraction = await gateway.gql(ADD, { input: { id: uniqueId('topup'), currency: 'USD', amountInCents: 30_000.5 } });
    expect(fraction.body.errors?.[0]?.message).toMatch(/SafeInt cannot represent non-integer value/);
    const unsafe = await gateway.gql(ADD, { input: { id: uniqueId('topup'), currency: 'USD', amountInCents: 2 ** 53 } });
    expect(unsafe.body.errors?.[0]?.message).toMatch(/SafeInt cannot represent unsafe integer value/);
  });
});
