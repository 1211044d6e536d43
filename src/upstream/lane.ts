import { AsyncLocalStorage } from 'node:async_hooks';

// Which caller an upstream request is made for, so the bulkhead can give each its fair share. Carried by
// async context rather than threaded through every client method: an operation's resolvers, its DataLoader
// batches and its rescues all run inside the operation that caused them.

/** Work not made for one caller: readiness pings, live pollers started outside an operation. */
export const GATEWAY_LANE = 'gateway';

const lanes = new AsyncLocalStorage<string>();

export function inLane<T>(lane: string, run: () => T): T {
  return lanes.run(lane, run);
}

export function currentLane(): string {
  return lanes.getStore() ?? GATEWAY_LANE;
}
