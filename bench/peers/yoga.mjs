// Peer 2: graphql-yoga on node:http with a schema written by hand in graphql-js (SDL + resolvers through
// yoga's createSchema), fetch for the reward API, DataLoader for orders by ref. No Pothos, no zod.

import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import DataLoader from 'dataloader';
import { announce, brandCache, campaignStatus, deliveryStatus, giftStatus, settings, toBalances, typeDefs } from './shared.mjs';

const { port, baseUrl, token } = settings();

async function get(path) {
  const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`upstream ${res.status} for ${path.split('?')[0]}`);
  return res.json();
}

const brands = brandCache((code) => get(`/brands/${encodeURIComponent(code)}`).then((body) => body.brand));

const schema = createSchema({
  typeDefs,
  resolvers: {
    Query: {
      funds: async () => ({ balances: toBalances(await get('/funds')) }),
      campaigns: (_root, { refs }, { campaigns }) => campaigns.loadMany(refs),
    },
    Campaign: {
      status: (c) => campaignStatus(c.status),
      gifts: async (c, { first }) => {
        const body = await get(`/gifts?campaign_uuid=${encodeURIComponent(c.uuid)}&limit=${first ?? 20}&offset=0`);
        return { edges: body.gifts.map((node) => ({ node })) };
      },
    },
    Gift: {
      status: (g) => giftStatus(g.status),
      deliveryStatus: (g) => deliveryStatus(g.delivery_status),
      priceInCents: (g) => Number(g.price_in_cents),
      recipientEmail: (g) => g.recipient_email ?? null,
      brand: (g) => (g.brand_code ? brands(g.brand_code) : null),
    },
    Brand: { brandCode: (b) => b.brand_code },
  },
});

const yoga = createYoga({
  schema,
  graphiql: false,
  context: () => ({
    campaigns: new DataLoader((refs) => Promise.all(refs.map((ref) => get(`/campaign/${encodeURIComponent(ref)}`).then((b) => b.campaign, (e) => e)))),
  }),
});
const server = createServer(yoga);
server.listen(port, '127.0.0.1', () => announce('yoga', server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
