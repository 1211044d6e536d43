// Peer 2: plain graphql-yoga (bench/peers/yoga-server.mjs): an undici Pool to the reward API, DataLoader,
// graphql-js executing every query interpreted.

import { startYoga } from './yoga-server.mjs';

startYoga('yoga');
