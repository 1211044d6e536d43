import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyedRegistry, Registry, type Entry } from '../../src/shared/registry.js';

describe('Registry', () => {
  it('holds what was added until it is removed, and drains the rest in the order they came', () => {
    const registry = new Registry<{ n: number }>();
    const [a, b, c] = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const [, entryB] = [registry.add(a), registry.add(b), registry.add(c)];
    expect(registry.size).toBe(3);
    entryB.remove();
    expect(registry.size).toBe(2);
    expect(registry.drain()).toEqual([a, c]);
    expect(registry.size).toBe(0);
    expect(registry.drain()).toEqual([]);
  });

  it('makes removing twice, or after a drain, a no-op', () => {
    const registry = new Registry<object>();
    const first = registry.add({});
    const second = registry.add({});
    first.remove();
    first.remove();
    expect(registry.size).toBe(1);
    registry.drain();
    second.remove();
    expect(registry.size).toBe(0);
    registry.add({});
    expect(registry.size).toBe(1);
  });

  it('agrees with a model under any order of adds, removes and drains', () => {
    type Op = { kind: 'add' } | { kind: 'remove'; pick: number } | { kind: 'drain' };
    const op = fc.oneof(
      fc.constant<Op>({ kind: 'add' }),
      fc.nat().map<Op>((pick) => ({ kind: 'remove', pick })),
      fc.constant<Op>({ kind: 'drain' }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const registry = new Registry<{ id: number }>();
        const model: { id: number }[] = [];
        const entries: { item: { id: number }; entry: Entry }[] = [];
        let next = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            const item = { id: next++ };
            entries.push({ item, entry: registry.add(item) });
            model.push(item);
          } else if (o.kind === 'remove' && entries.length > 0) {
            const chosen = entries[o.pick % entries.length]!;
            chosen.entry.remove();
            const at = model.indexOf(chosen.item);
            if (at >= 0) model.splice(at, 1);
          } else if (o.kind === 'drain') {
            expect(registry.drain()).toEqual(model.splice(0));
          }
          expect(registry.size).toBe(model.length);
        }
      }),
    );
  });
});

describe('KeyedRegistry', () => {
  it('finds what was set by its key until it is deleted or cleared, whatever the key', () => {
    const loads = new KeyedRegistry<number>();
    for (const [i, key] of ['order-1\nv', '__proto__', 'constructor', 'toString', ''].entries()) loads.set(key, i);
    expect(loads.get('__proto__')).toBe(1);
    expect(loads.get('constructor')).toBe(2);
    expect(loads.get('hasOwnProperty')).toBeUndefined();
    loads.delete('constructor');
    expect(loads.get('constructor')).toBeUndefined();
    expect(loads.keys()).toEqual(['order-1\nv', '__proto__', 'toString', '']);
    loads.clear();
    expect(loads.keys()).toEqual([]);
    expect(loads.get('order-1\nv')).toBeUndefined();
  });
});
