import { describe, expect, it } from 'vitest';
import type { CatalogCache } from '../../src/catalog/catalog-cache.js';
import { createLoaders } from '../../src/graph/loaders.js';
import type { Brand, Gift, GiftQuery, Page, UpstreamClient } from '../../src/upstream/types.js';

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

describe('gifts a page listed', () => {
  const gift = (uuid: string) => ({ uuid, status: 'listed' }) as unknown as Gift;
  function listingClient() {
    const read: string[] = [];
    const batches: number[] = [];
    const client = {
      listGifts: async () => ({ items: [gift('g-1'), gift('g-2')], numberOfResults: 2, limit: 20, offset: 0, totalCount: 2 }),
      getGift: async (uuid: string) => (read.push(uuid), { uuid, status: 'read' } as unknown as Gift),
    } as unknown as UpstreamClient;
    return { client, read, batches };
  }

  it('are answered from the page, without a request; only the others are read, in one batch', async () => {
    const { client, read, batches } = listingClient();
    const loaders = createLoaders(client, noCatalog, undefined, { onBatch: (name, size) => name === 'gift' && batches.push(size) });
    const page = await loaders.giftPage.load({ campaignUuid: 'a', limit: 20, offset: 0 });
    const [one, other, two] = await Promise.all([loaders.gift.load('g-1'), loaders.gift.load('g-9'), loaders.gift.load('g-2')]);
    expect(one).toBe(page.items[0]);
    expect(two).toBe(page.items[1]);
    expect(other).toMatchObject({ uuid: 'g-9', status: 'read' });
    expect(read).toEqual(['g-9']);
    expect(batches).toEqual([1]);
  });

  it('keep the first answer for a gift the request already read, and are forgotten with everything else', async () => {
    const { client, read } = listingClient();
    const loaders = createLoaders(client, noCatalog);
    expect(await loaders.gift.load('g-1')).toMatchObject({ status: 'read' });
    await loaders.giftPage.load({ campaignUuid: 'a', limit: 20, offset: 0 });
    expect(await loaders.gift.load('g-1')).toMatchObject({ status: 'read' });
    expect(await loaders.gift.load('g-2')).toMatchObject({ status: 'listed' });
    loaders.forgetAll();
    expect(await loaders.gift.load('g-2')).toMatchObject({ status: 'read' });
    expect(read).toEqual(['g-1', 'g-2']);
  });
});

describe('brands by code', () => {
  it('are read once per request through one promise, and once read are the brand itself (null included)', async () => {
    const asked: string[] = [];
    const catalog = {
      brand: (code: string) => {
        asked.push(code);
        if (code === 'broken') return Promise.reject(new Error('upstream down'));
        return Promise.resolve(code === 'known' ? ({ brandCode: 'known', name: 'Known' } as unknown as Brand) : null);
      },
    } as unknown as CatalogCache;
    const loaders = createLoaders({} as UpstreamClient, catalog);
    const first = loaders.brandOf('known');
    expect(first).toBeInstanceOf(Promise);
    expect(loaders.brandOf('known')).toBe(first);
    expect(await first).toEqual({ brandCode: 'known', name: 'Known' });
    expect(loaders.brandOf('known')).toBe(await first);

    expect(await loaders.brandOf('unknown')).toBeNull();
    expect(loaders.brandOf('unknown')).toBeNull();

    // A failed read is not repeated within the request, as the DataLoader's cache does not repeat it either.
    const failed = loaders.brandOf('broken');
    await expect(failed).rejects.toThrow('upstream down');
    expect(loaders.brandOf('broken')).toBe(failed);
    expect(asked).toEqual(['known', 'unknown', 'broken']);
  });
});
