// Peer 3: the same yoga server (bench/peers/yoga-server.mjs) with @envelop/graphql-jit, which compiles every
// document on its first execution and caches the compiled query: the strongest plain stack a team would build
// (the gateway runs graphql-jit too, under its own policy).

import { useGraphQlJit } from '@envelop/graphql-jit';
import { startYoga } from './yoga-server.mjs';

startYoga('yoga-jit', [useGraphQlJit()]);
