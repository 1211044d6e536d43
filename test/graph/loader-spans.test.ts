import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogCache } from '../../src/catalog/catalog-cache.js';
import { createLoaders } from '../../src/graph/loaders.js';
import type { Campaign, UpstreamClient } from '../../src/upstream/types.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

// The loaders' part of a trace: a batch of several keys is a span of its own (its name and size), a batch of one
// key is not (its only child would be the one upstream call), and either way a key that fails fails alone.

const { exporter } = inMemoryTracing();
afterEach(() => exporter.reset());

const client = {
  getCampaign: (ref: string) =>
    ref.startsWith('missing') ? Promise.reject(new Error(`no ${ref}`)) : Promise.resolve({ id: ref, uuid: `u-${ref}` } as Campaign),
} as unknown as UpstreamClient;
const inOperation = <T>(run: () => Promise<T>) => trace.getTracer('test').startActiveSpan('operation', (span) => run().finally(() => span.end()));
const loaderSpans = () => exporter.getFinishedSpans().filter((s) => s.name.startsWith('loader '));

describe('loader spans', () => {
  it('a batch of several keys has a span with its size; a failing key fails alone', async () => {
    const loaders = createLoaders(client, {} as CatalogCache);
    const [found, missing] = await inOperation(() =>
      Promise.allSettled([loaders.campaign.load('order-2026-11-29-a'), loaders.campaign.load('missing-order-b')]),
    );
    expect(found).toMatchObject({ status: 'fulfilled', value: { id: 'order-2026-11-29-a' } });
    expect(missing).toMatchObject({ status: 'rejected', reason: { message: 'no missing-order-b' } });
    expect(loaderSpans().map((s) => [s.name, s.attributes])).toEqual([
      ['loader campaign', { 'reward.loader.name': 'campaign', 'reward.loader.batch_size': 2 }],
    ]);
    const operation = exporter.getFinishedSpans().find((s) => s.name === 'operation')!;
    expect(loaderSpans()[0]!.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
  });

  it('a batch of one key has no span of its own, and still answers or fails for that key', async () => {
    const sizes: number[] = [];
    const loaders = createLoaders(client, {} as CatalogCache, undefined, { onBatch: (_name, size) => sizes.push(size) });
    await expect(inOperation(() => loaders.campaign.load('order-2026-11-29-c'))).resolves.toMatchObject({ uuid: 'u-order-2026-11-29-c' });
    await expect(inOperation(() => loaders.campaign.load('missing-order-d'))).rejects.toThrow('no missing-order-d');
    expect(loaderSpans()).toEqual([]);
    expect(sizes).toEqual([1, 1]);
  });
});
