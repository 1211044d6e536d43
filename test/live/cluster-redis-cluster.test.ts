import { startClusterTopology } from '../support/redis-topologies.js';
import { failoverSuite } from './redis-failover.js';

// Cluster mode on a six-node Redis Cluster (three primaries with a replica each): the primary serving the first
// watched order's slot is killed and its replica promoted; see redis-failover.ts for what every subscriber must see.

failoverSuite('Redis Cluster: the primary of a watched order killed (SIGKILL), its replica promoted', () => startClusterTopology());
