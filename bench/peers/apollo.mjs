// Peer 1: Apollo Server 4 with its standalone HTTP server, @apollo/datasource-rest for the reward API (one
// data source per request, which dedupes identical GETs within it) and DataLoader for orders by ref.

import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { RESTDataSource } from '@apollo/datasource-rest';
import DataLoader from 'dataloader';
import { announce, brandCache, campaignStatus, deliveryStatus, giftStatus, settings, toBalances, typeDefs } from './shared.mjs';

const { port, baseUrl, token } = settings();

class RewardAPI extends RESTDataSource {
  baseURL = `${baseUrl}/`;
  willSendRequest(_path, request) {
    request.headers.authorization = `Bearer ${token}`;
  }
  funds() {
    return this.get('funds');
  }
  campaign(ref) {
    return this.get(`campaign/${encodeURIComponent(ref)}`).then((body) => body.campaign);
  }
  gifts(campaignUuid, limit) {
    return this.get('gifts', { params: { campaign_uuid: campaignUuid, limit: String(limit), offset: '0' } }).then((body) => body.gifts);
  }
  brand(code) {
    return this.get(`brands/${encodeURIComponent(code)}`).then((body) => body.brand);
  }
}

// Brands outlive a request: cached process-wide through a data source of their own.
const brands = brandCache((code) => new RewardAPI().brand(code));

const resolvers = {
  Query: {
    funds: async (_root, _args, { api }) => ({ balances: toBalances(await api.funds()) }),
    campaigns: (_root, { refs }, { campaigns }) => campaigns.loadMany(refs),
  },
  Campaign: {
    status: (c) => campaignStatus(c.status),
    gifts: async (c, { first }, { api }) => ({ edges: (await api.gifts(c.uuid, first ?? 20)).map((node) => ({ node })) }),
  },
  Gift: {
    status: (g) => giftStatus(g.status),
    deliveryStatus: (g) => deliveryStatus(g.delivery_status),
    priceInCents: (g) => Number(g.price_in_cents),
    recipientEmail: (g) => g.recipient_email ?? null,
    brand: (g) => (g.brand_code ? brands(g.brand_code) : null),
  },
  Brand: { brandCode: (b) => b.brand_code },
};

const server = new ApolloServer({ typeDefs, resolvers });
const { url } = await startStandaloneServer(server, {
  listen: { port, host: '127.0.0.1' },
  context: async () => {
    const api = new RewardAPI();
    return { api, campaigns: new DataLoader((refs) => Promise.all(refs.map((ref) => api.campaign(ref).catch((e) => e)))) };
  },
});
announce('apollo', new URL(url).port);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
