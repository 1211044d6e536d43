// What the two yoga peers share: graphql-yoga on node:http with a schema written by hand in graphql-js (SDL +
// resolvers through yoga's createSchema), the reward API through an undici Pool (keep-alive, as many
// connections as the gateway's upstream pool: UPSTREAM_CONNECTIONS' default, 64), DataLoader for orders by ref
// and the process-wide brand cache. No Pothos, no zod. The plugins are the only difference between the peers.

import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import DataLoader from 'dataloader';
import { Pool } from 'undici';
import { announce, brandCache, campaignStatus, deliveryStatus, giftStatus, settings, toBalances, typeDefs } from './shared.mjs';

/** The gateway's upstream pool size (src/upstream/config.ts, CLIENT_DEFAULTS.connections). */
const CONNECTIONS = 64;

export function startYoga(name, plugins = []) {
  const { port, baseUrl, token } = settings();
  const base = new URL(baseUrl);
  const pool = new Pool(base.origin, { connections: CONNECTIONS });
  const prefix = base.pathname.replace(/\/$/, '');
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

  async function get(path) {
    const res = await pool.request({ method: 'GET', path: `${prefix}${path}`, headers });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`upstream ${res.statusCode} for ${path.split('?')[0]}`);
    }
    return res.body.json();
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
    plugins,
    context: () => ({
      campaigns: new DataLoader((refs) =>
        Promise.all(
          refs.map((ref) =>
            get(`/campaign/${encodeURIComponent(ref)}`).then(
              (b) => b.campaign,
              (e) => e,
            ),
          ),
        ),
      ),
    }),
  });
  const server = createServer(yoga);
  server.listen(port, '127.0.0.1', () => announce(name, server.address().port));
  process.on('SIGTERM', () => server.close(() => void pool.close().then(() => process.exit(0))));
}
