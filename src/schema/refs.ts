import type { BrandSummary, Campaign, Gift, Region } from '../upstream/types.js';
import { builder } from './builder.js';

// Refs of the types that refer to each other; each is implemented in its own file.

export const CampaignRef = builder.objectRef<Campaign>('Campaign');
export const GiftRef = builder.objectRef<Gift>('Gift');
/** A brand as the list endpoint gives it; detail fields load the full record on demand. */
export const BrandRef = builder.objectRef<BrandSummary>('Brand');
export const RegionRef = builder.objectRef<Region>('Region');
