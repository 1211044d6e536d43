// When the gateway last read an object from the reward API (the schema's `observedAt`), kept beside the object
// rather than on it: the normalised shapes stay what the upstream said, so feeds that compare snapshots see no
// change when only the reading time moved.

const observed = new WeakMap<object, Date>();

/** Marks `value` (and, for a page, each of its items) as read from the upstream at `at`. */
export function stamp<T>(value: T, at: number): T {
  if (typeof value !== 'object' || value === null) return value;
  const when = new Date(at);
  observed.set(value, when);
  const items = (value as { items?: unknown }).items;
  if (Array.isArray(items)) for (const item of items) if (typeof item === 'object' && item !== null) observed.set(item, when);
  return value;
}

/**
 * When `value` was read from the upstream. Objects that did not come through the cache (a subscription's
 * event, a gateway without a cache) were read for the answer that carries them: now.
 */
export function observedAt(value: object): Date {
  return observed.get(value) ?? new Date();
}
