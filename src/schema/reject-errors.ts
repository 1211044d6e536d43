/**
 * DataLoader's `loadMany` answers an Error in place of each key whose load failed. A rejected promise in its
 * place makes graphql-js report that error on the entry alone and keep the others, and it fits the list's
 * declared item type without a cast. The same helper as @pothos/plugin-dataloader's `rejectErrors`; the
 * schema uses nothing else of that plugin, so it is not a dependency.
 */
export function rejectErrors<T>(items: readonly (T | Error)[]): (T | Promise<never>)[] {
  return items.map((item) => (item instanceof Error ? Promise.reject(item) : item));
}
