import { builder } from './builder.js';
import { RegionRef } from './refs.js';

RegionRef.implement({
  description: 'A catalog region, e.g. USA or Canada.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    imageUrl: t.exposeString('imageUrl', { nullable: true }),
  }),
});

builder.queryField('regions', (t) =>
  t.field({
    type: [RegionRef],
    nullable: true,
    authScopes: { 'rewards:read': true },
    resolve: (_root, _args, ctx) => ctx.loaders.regions(),
  }),
);
