import type { ObjectRef } from '@pothos/core';
import { builder } from './builder.js';
import { connectionTotal } from './paging.js';

// A connection over the upstream's offset paging (paging.ts's OffsetConnection): its totalCount, and its edge's
// node as a property, replacing the resolver Pothos gives `node` (paging.ts, OffsetEdge, says why).
// LinkConnection, which has a field of its own besides, is made the same way in campaign.ts.

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer S> ? S : never;

/** The `name` connection of `type`: its edges, pageInfo and totalCount. */
export function offsetConnection<T extends object>(type: ObjectRef<Types, T>, name: string) {
  return builder.connectionObject(
    { type, name, fields: (t) => ({ totalCount: t.int({ resolve: connectionTotal }) }) },
    { fields: (t) => ({ node: t.expose('node', { type }) }) },
  );
}
