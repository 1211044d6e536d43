import { describe, expect, it } from 'vitest';
import type { CatalogCache } from '../../src/catalog/catalog-cache.js';
import { createLoaders } from '../../src/loaders.js';
import type { Gift, GiftQuery, Page, UpstreamClient } from '../../src/upstream/types.js';

// Scheduling of the per-request loaders, with a client whose answers the test releases one by one: the
// order in which pages come back is the point, and no server can be told to hold one answer of two.

function heldClient() {
  const held = new Map<string, (page: Page<Gift>) => void>();
  const asked: string[] = [];
  const client = {
    listGifts: (query: GiftQuery) =>
      new Promise<Page<Gift>>((resolve) => {
        asked.push(query.campaignUuid!);
        held.set(query.campaignUuid!, resolve);
      }),
  } as unknown as UpstreamClient;
  const release = (campaignUuid: string) => held.get(campaignUuid)!({ items: [], numberOfResults: 0, limit: 20, offset: 0, totalCount: 0 });
  return { client, asked, release };
}

const noCatalog = {} as CatalogCache;
const settled = () => new Promise((r) => setTimeout(r, 0));

describe('gift pages', () => {
  it('each page resolves when its own answer is back, not when the slowest page of the request is', async () => {
    const { client, asked, release } = heldClient();
    const loaders = createLoaders(client, noCatalog);
    let firstDone = false;
    const first = loaders.giftPage.load({ campaignUuid: 'a', limit: 20, offset: 0 }).then(() => (firstDone = true));
    const second = loaders.giftPage.load({ campaignUuid: 'b', limit: 20, offset: 0 });
    await settled();
    expect(asked).toEqual(['a', 'b']);

    release('a');
    await settled();
    expect(firstDone).toBe(true);

    release('b');
    await Promise.all([first, second]);
  });

  it('still asks the upstream once for the same page asked twice in a request', async () => {
    const { client, asked, release } = heldClient();
    const loaders = createLoaders(client, noCatalog);
    const pages = [
      loaders.giftPage.load({ campaignUuid: 'a', limit: 20, offset: 0 }),
      loaders.giftPage.load({ offset: 0, limit: 20, campaignUuid: 'a' }),
    ];
    await settled();
    release('a');
    const [one, two] = await Promise.all(pages);
    expect(one).toBe(two);
    expect(asked).toEqual(['a']);
  });
});
