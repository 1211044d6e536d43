import type { Campaign } from './types.js';

// A create whose answer was lost is recovered by looking its caller id up. If that id was used before for a
// different order, the lookup finds the old one: reporting it as this create's success would tell the caller
// its rewards went out when they did not. So a recovered order must match what was asked.

export interface AskedOrder {
  priceInCents: number;
  brandCodes?: string[];
  region?: string;
}

export function isSameOrder(found: Campaign, asked: AskedOrder): boolean {
  if (found.priceInCents !== asked.priceInCents) return false;
  if (asked.brandCodes) {
    const want = [...asked.brandCodes].sort();
    const have = [...found.brandCodes].sort();
    return want.length === have.length && want.every((code, i) => code === have[i]);
  }
  // A full-catalog order lists the region's brands, so only the region itself is compared.
  if (asked.region) return (found.region ?? '').toLowerCase() === asked.region.toLowerCase();
  return true;
}
