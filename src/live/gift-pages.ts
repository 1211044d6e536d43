// Reading rewards for a poll: whole lists paged through at the upstream's largest page, and the rewards that
// left a list, looked up again as cheaply as their number allows.

import type { Gift, GiftQuery, UpstreamClient } from '../upstream/types.js';

/** The upstream's largest page of gifts. */
export const GIFT_PAGE = 100;
/** Lookups of single rewards in flight at once, so a burst of them does not crowd out request traffic. */
const LOOKUP_CONCURRENCY = 4;

/**
 * Every gift matching the query, page by page. Offsets can shift while paging (a reward leaves a status
 * filter, a new one arrives): a shift duplicates or skips an entry, so callers dedupe by uuid and look up
 * any watched reward that did not show.
 */
export async function listAllGifts(client: UpstreamClient, query: GiftQuery, signal?: AbortSignal): Promise<Gift[]> {
  const gifts: Gift[] = [];
  let offset = 0;
  for (;;) {
    const page = await client.listGifts({ ...query, limit: GIFT_PAGE, offset }, { signal });
    gifts.push(...page.items);
    offset += page.items.length;
    if (page.items.length === 0 || offset >= page.totalCount) return gifts;
  }
}

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
  await eachLimited(single, LOOKUP_CONCURRENCY, async (uuid) => {
    const gift = await client.getGift(uuid, { signal });
    if (gift) found.push(gift);
    else gone.push(uuid);
  });
  return { found, gone };
}

/** Lists one order while that is cheaper than single lookups; removes what it found from `wanted`. */
async function readOrder(
  client: UpstreamClient,
  campaignUuid: string,
  wanted: Set<string>,
  signal: AbortSignal,
): Promise<Gift[]> {
  const found: Gift[] = [];
  let offset = 0;
  for (;;) {
    const page = await client.listGifts({ campaignUuid, limit: GIFT_PAGE, offset }, { signal });
    for (const gift of page.items) {
      if (wanted.delete(gift.uuid)) found.push(gift);
    }
    offset += page.items.length;
    const pagesLeft = Math.ceil(Math.max(0, page.totalCount - offset) / GIFT_PAGE);
    if (page.items.length === 0 || pagesLeft === 0 || pagesLeft > wanted.size) return found;
  }
}

async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
