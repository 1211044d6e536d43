import type { CallOptions, Gift, GiftQuery, Page, UpstreamClient } from './types.js';

// Paging through GET /gifts: the one place that knows the upstream's largest page and how to advance.

/** The upstream's largest page of gifts. */
export const GIFTS_PAGE_MAX = 100;

/**
 * The pages of gifts matching the query, in order, at the largest page size; stop early by leaving the loop.
 * Pages advance by what arrived, whatever cap the upstream applies, and end at an empty page or at the total.
 * Offsets can shift while paging (a reward leaves a status filter, a new one arrives): a shift repeats or
 * skips an entry, so callers that must see each reward dedupe by uuid or sort by something stable.
 */
export async function* giftPages(
  client: UpstreamClient,
  query: Omit<GiftQuery, 'limit' | 'offset'>,
  opts: CallOptions = {},
): AsyncGenerator<Page<Gift>> {
  let offset = 0;
  for (;;) {
    const page = await client.listGifts({ ...query, limit: GIFTS_PAGE_MAX, offset }, opts);
    yield page;
    offset += page.items.length;
    if (page.items.length === 0 || offset >= page.totalCount) return;
  }
}

/** Every gift matching the query (see giftPages for what a shift while paging does). */
export async function listAllGifts(client: UpstreamClient, query: Omit<GiftQuery, 'limit' | 'offset'>, opts: CallOptions = {}): Promise<Gift[]> {
  const gifts: Gift[] = [];
  for await (const page of giftPages(client, query, opts)) gifts.push(...page.items);
  return gifts;
}
