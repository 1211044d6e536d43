import { getNamedType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';

// Every connection's edge reads its node as a property (src/schema/paging.ts, OffsetEdge): a resolver there
// costs graphql-jit a resolve info, its path and three closures per edge, hundreds of them in a nested read.

describe('connection edges', () => {
  it('have a node field with no resolver of its own, in every connection of the schema', () => {
    const connections = Object.values(schema.getTypeMap()).filter(
      (type) => isObjectType(type) && type.getFields().edges && type.getFields().pageInfo,
    );
    expect(connections.map((c) => c.name).sort()).toEqual(['BrandConnection', 'GiftConnection', 'LinkConnection', 'WebhookDeliveryConnection']);
    for (const connection of connections) {
      if (!isObjectType(connection)) continue;
      const edge = getNamedType(connection.getFields().edges!.type);
      if (!isObjectType(edge)) throw new Error(`${connection.name}.edges is not a list of objects`);
      expect({ edge: edge.name, resolver: edge.getFields().node?.resolve }).toEqual({ edge: edge.name, resolver: undefined });
    }
  });
});
