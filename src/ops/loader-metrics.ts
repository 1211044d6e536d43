import { Histogram, type Registry } from 'prom-client';

// How many keys each DataLoader batch carried: a batch of 1 everywhere means the loaders are not batching
// what the resolvers ask for.

export const DEFAULT_BATCH_BUCKETS = [1, 2, 3, 5, 10, 25, 50, 100];

export function loaderMetrics(registry: Registry): (loader: string, size: number) => void {
  const batchSize = new Histogram({
    name: 'reward_gateway_loader_batch_size',
    help: 'Keys per DataLoader batch, by loader',
    labelNames: ['loader'],
    buckets: DEFAULT_BATCH_BUCKETS,
    registers: [registry],
  });
  return (loader, size) => batchSize.observe({ loader }, size);
}
