// Rewards that left a poll's list, looked up again as cheaply as their number allows (paging itself belongs to
// upstream/gift-pages.ts).

import pLimit from 'p-limit';
import { GIFTS_PAGE_MAX, giftPages } from '../upstream/gift-pages.js';
import type { Gift, UpstreamClient } from '../upstream/types.js';

/** Lookups of single rewards in flight at once, so a burst of them does not crowd out request traffic. */
const LOOKUP_CONCURRENCY = 4;

export interface Refreshed {
  found: Gift[];
  /** Uuids the upstream no longer knows. */
  gone: string[];
}

/**
 * Fresh records of rewards that left a list. One reward costs one GET /gifts/{uuid}; many of one order (an
 * order expiring at the end of its day) are read by listing that order instead, as long as the pages left
 * are fewer than the rewards still missing.
 */
export async function refreshGifts(client: UpstreamClient, stale: Gift[], signal: AbortSignal): Promise<Refreshed> {
  const byOrder = new Map<string, Set<string>>();
  for (const gift of stale) {
    const uuids = byOrder.get(gift.campaignUuid) ?? new Set<string>();
    uuids.add(gift.uuid);
    byOrder.set(gift.campaignUuid, uuids);
  }
  const found: Gift[] = [];
  const single: string[] = [];
  for (const [campaignUuid, wanted] of byOrder) {
    if (wanted.size > 1) found.push(...(await readOrder(client, campaignUuid, wanted, signal)));
    single.push(...wanted);
  }
  const gone: string[] = [];
  const limit = pLimit(LOOKUP_CONCURRENCY);
  await Promise.all(
    single.map((uuid) =>
      limit(async () => {
        const gift = await client.getGift(uuid, { signal });
        if (gift) found.push(gift);
        else gone.push(uuid);
      }),
    ),
  );
  return { found, gone };
}

/** Lists one order while that is cheaper than single lookups; removes what it found from `wanted`. */
async function readOrder(client: UpstreamClient, campaignUuid: string, wanted: Set<string>, signal: AbortSignal): Promise<Gift[]> {
  const found: Gift[] = [];
  let offset = 0;
  for await (const page of giftPages(client, { campaignUuid }, { signal })) {
    for (const gift of page.items) {
      if (wanted.delete(gift.uuid)) found.push(gift);
    }
    offset += page.items.length;
    const pagesLeft = Math.ceil(Math.max(0, page.totalCount - offset) / GIFTS_PAGE_MAX);
    if (pagesLeft > wanted.size) break;
  }
  return found;
}
