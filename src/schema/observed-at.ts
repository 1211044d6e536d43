import { observedAt } from '../cache/observed.js';

// The one description of `observedAt`, shared by Campaign, Gift and Funds.

export const OBSERVED_AT = {
  type: 'DateTime',
  description:
    'When the gateway last read this object from the reward API: the answer may come from its read cache, and this says how fresh it is (docs/caching.md).',
  resolve: (value: object) => observedAt(value),
} as const;
