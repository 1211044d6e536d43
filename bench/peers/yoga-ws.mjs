// The bare subscription stack, for one figure only (heap per idle subscriber): graphql-yoga with graphql-ws on
// a `ws` server (yoga's documented recipe), holding the gateway's `giftStatusChanged(campaign:)` subscription
// through yoga's own createPubSub, one topic per order. Nothing publishes here: it measures what the stack
// itself keeps per subscriber, which the gateway's figure is compared against.

import { createServer } from 'node:http';
import { createPubSub, createSchema, createYoga } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { announce, settings, typeDefs } from './shared.mjs';

const { port } = settings();
const pubsub = createPubSub();

const schema = createSchema({
  typeDefs: `${typeDefs}
    type GiftRef { uuid: String! status: GiftStatus! }
    type GiftStatusChange { gift: GiftRef! previousStatus: GiftStatus changedAt: String! }
    type Subscription { giftStatusChanged(campaign: ID): GiftStatusChange! }`,
  resolvers: {
    Query: { funds: () => null, campaigns: () => [] },
    Subscription: {
      giftStatusChanged: {
        subscribe: (_root, { campaign }) => pubsub.subscribe(`gift:${campaign ?? '*'}`),
        resolve: (change) => change,
      },
    },
  },
});

const yoga = createYoga({ schema, graphiql: false });
const server = createServer(yoga);
const wsServer = new WebSocketServer({ server, path: yoga.graphqlEndpoint });
useServer(
  {
    execute: (args) => args.rootValue.execute(args),
    subscribe: (args) => args.rootValue.subscribe(args),
    onSubscribe: async (ctx, _id, params) => {
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        socket: ctx.extra.socket,
        params,
      });
      const args = {
        schema,
        operationName: params.operationName,
        document: parse(params.query),
        variableValues: params.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
      const errors = validate(args.schema, args.document);
      return errors.length ? errors : args;
    },
  },
  wsServer,
);
server.listen(port, '127.0.0.1', () => announce('yoga-ws', server.address().port));
process.on('SIGTERM', () => {
  for (const client of wsServer.clients) client.terminate();
  server.close(() => process.exit(0));
});
