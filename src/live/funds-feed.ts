// The feed of the account's balances: one GET /funds per poll, an event when any balance moved.

import type { CurrencyBalance, Funds, UpstreamClient } from '../upstream/types.js';
import type { Applied, Feed, PollOutcome } from './feed.js';

export type FundsEvent = { topic: 'funds'; funds: Funds; previous: Funds; changedAt: Date };

export class FundsFeed implements Feed<FundsEvent> {
  private last: Funds | null = null;

  constructor(private readonly client: UpstreamClient) {}

  async poll(signal: AbortSignal, baseline: boolean): Promise<PollOutcome<FundsEvent>> {
    const funds = await this.client.getFunds({ signal });
    const previous = this.last;
    this.last = funds;
    if (baseline || !previous || sameBalances(previous, funds)) {
      return { events: [], ended: [] };
    }
    return { events: [{ topic: 'funds', funds, previous, changedAt: new Date() }], ended: [] };
  }

  apply(event: FundsEvent): Applied {
    // Balances carry no version: a change is taken when it starts from the balances known.
    if (this.last && sameBalances(this.last, event.funds)) return 'seen';
    if (this.last && !sameBalances(this.last, event.previous)) return 'unsure';
    this.last = event.funds;
    return 'applied';
  }

  snapshot(): Funds | null {
    return this.last;
  }

  restore(state: unknown): void {
    this.last = state as Funds | null;
  }

  current(): FundsEvent[] {
    return [];
  }
}

function balanceOf(funds: Funds, currency: string): CurrencyBalance | undefined {
  return funds.balances.find((b) => b.currency === currency);
}

function currenciesOf(a: Funds, b: Funds): string[] {
  return [...new Set([...a.balances, ...b.balances].map((balance) => balance.currency))];
}

function sameBalances(a: Funds, b: Funds): boolean {
  return !currenciesOf(a, b).some((currency) => balanceChanged(a, b, currency));
}

/** Whether the available, pending or reserved amount of one currency differs between two readings. */
export function balanceChanged(before: Funds, after: Funds, currency: string): boolean {
  const a = balanceOf(before, currency);
  const b = balanceOf(after, currency);
  if (!a || !b) return a !== b;
  return a.availableInCents !== b.availableInCents || a.pendingInCents !== b.pendingInCents || a.reservedInCents !== b.reservedInCents;
}
