import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin, { RequestCache } from '@pothos/plugin-scope-auth';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useScopeCacheRelease } from '../../src/edge/use-scope-cache-release.js';

// Scope auth keeps each operation's checks in a WeakMap entry that holds the context, and V8's scavenger keeps
// such entries' values alive after their key died, so an operation's whole context (every upstream answer it
// read) was promoted to the old generation (src/edge/use-scope-cache-release.ts). The plugin drops the entry
// once the operation is complete. Seen here through Pothos's own cache: after the operation, asking for the
// context's cache builds a new one.

interface Ctx {
  scopes: Set<string>;
}

function schemaSeeing(seen: { context?: Ctx; cache?: unknown }) {
  const self: { builder?: object } = {};
  const builder = new SchemaBuilder<{ Context: Ctx; AuthScopes: { reader: boolean } }>({
    plugins: [ScopeAuthPlugin],
    scopeAuth: {
      authorizeOnSubscribe: true,
      // Called by the cache being built for the operation: the one to follow.
      authScopes: (ctx) => {
        seen.context = ctx;
        seen.cache = RequestCache.fromContext(ctx, self.builder as never);
        return { reader: ctx.scopes.has('reader') };
      },
    },
  });
  self.builder = builder;
  const Delivery = builder.objectRef<{ status: string }>('Delivery').implement({
    fields: (t) => ({ status: t.exposeString('status', { authScopes: { reader: true } }) }),
  });
  const Order = builder.objectRef<{ id: string }>('Order').implement({
    fields: (t) => ({
      id: t.exposeString('id'),
      // Its field's scopes are checked once it resolved: in a deferred fragment, after the first part was sent.
      delivery: t.field({
        type: Delivery,
        resolve: () => new Promise<{ status: string }>((resolve) => setTimeout(resolve, 20, { status: 'DELIVERED' })),
      }),
    }),
  });
  builder.queryType({
    fields: (t) => ({
      order: t.field({ type: Order, authScopes: { reader: true }, resolve: () => ({ id: '2026-11-29-ada-lovelace' }) }),
    }),
  });
  builder.subscriptionType({
    fields: (t) => ({
      statusChanged: t.string({
        authScopes: { reader: true },
        // One event, then open until the client leaves.
        subscribe: () => {
          let sent = false;
          const events: AsyncIterableIterator<string> = {
            [Symbol.asyncIterator]: () => events,
            next: () => (sent ? new Promise<never>(() => {}) : ((sent = true), Promise.resolve({ value: 'SENT', done: false }))),
            return: () => Promise.resolve({ value: undefined, done: true }),
          };
          return events;
        },
        resolve: (status: string) => status,
      }),
    }),
  });
  return { builder, schema: builder.toSchema() };
}

function gateway(plugins: Plugin[]) {
  const seen: { context?: Ctx; cache?: unknown } = {};
  const { builder, schema } = schemaSeeing(seen);
  const yoga = createYoga<object, Ctx>({ schema, context: () => ({ scopes: new Set(['reader']) }), plugins: [useDeferStream(), ...plugins] });
  const post = (query: string, accept = 'application/json') =>
    yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ query }),
    });
  /** Whether the cache the operation used is still the context's. */
  const kept = () => RequestCache.fromContext(seen.context!, builder as never) === seen.cache;
  return { post, kept };
}

describe("scope auth's cache of an operation's checks", () => {
  it('is dropped once a query is answered (and without the plugin it is kept: the check can tell)', async () => {
    for (const [plugins, keptAfter] of [
      [[useScopeCacheRelease()], false],
      [[], true],
    ] as const) {
      const { post, kept } = gateway([...plugins]);
      const response = await post('{ order { id } }');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: { order: { id: '2026-11-29-ada-lovelace' } } });
      expect(kept()).toBe(keptAfter);
    }
  });

  // Dropped with the first part, the deferred field's check would build a second cache, which nothing drops.
  it('is dropped after the last part of a deferred answer, not before the deferred fields are checked', async () => {
    const { post, kept } = gateway([useScopeCacheRelease()]);
    const response = await post('{ order { id ... @defer { delivery { status } } } }', 'multipart/mixed');
    const text = await response.text();
    expect(text).toContain('2026-11-29-ada-lovelace');
    expect(text).toContain('DELIVERED');
    expect(kept()).toBe(false);
  });

  it('is dropped once a subscription has started, while it stays open', async () => {
    const { post, kept } = gateway([useScopeCacheRelease()]);
    const response = await post('subscription { statusChanged }', 'text/event-stream');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('"statusChanged":"SENT"')) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended before its first event: ${text}`);
      text += value;
    }
    expect(kept()).toBe(false);
    await reader.cancel();
  });
});
