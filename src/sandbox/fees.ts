// Fees as production records them: the face value of every gift prefunded, a breakage line that is always 0,
// no tax. Embedded rewards add an UPFRONT_PER_GIFT_FEE line; the specification says rewards cost face value
// with no other fees, so its amount is 0 and totals stay face value × gifts.

export interface CostEntry {
  fee_type: 'PREFUND_GIFT_COST' | 'BREAKAGE_PERCENTAGE' | 'UPFRONT_PER_GIFT_FEE';
  percentage: number;
  amount_in_cents: number;
  currency: string;
  tax_type: 'NOTAX';
  tax_in_cents: number;
  number_of_gifts: number;
  fee_per_gift_in_cents: number;
}

export interface Fees {
  cost_entries: CostEntry[];
  subtotal_in_cents: number;
  tax_in_cents: number;
  tax_type: 'NOTAX';
  total_in_cents: number;
}

const entry = (feeType: CostEntry['fee_type'], currency: string, gifts: number, perGift: number, percentage: number): CostEntry => ({
  fee_type: feeType,
  percentage,
  amount_in_cents: perGift * gifts,
  currency,
  tax_type: 'NOTAX',
  tax_in_cents: 0,
  number_of_gifts: gifts,
  fee_per_gift_in_cents: perGift,
});

export function computeFees(priceInCents: number, gifts: number, currency: string, embedded = false): Fees {
  const entries = [
    entry('PREFUND_GIFT_COST', currency, gifts, priceInCents, 0),
    entry('BREAKAGE_PERCENTAGE', currency, gifts, 0, 0),
    ...(embedded ? [entry('UPFRONT_PER_GIFT_FEE', currency, gifts, 0, 0)] : []),
  ];
  const subtotal = entries.reduce((sum, e) => sum + e.amount_in_cents, 0);
  return { cost_entries: entries, subtotal_in_cents: subtotal, tax_in_cents: 0, tax_type: 'NOTAX', total_in_cents: subtotal };
}

/** What one reward of an order costs: its share of the total, held in `reserved` while claimable. */
export function costPerGift(fees: Fees): number {
  return fees.cost_entries.reduce((sum, e) => sum + e.fee_per_gift_in_cents, 0);
}
