import { startSentinelTopology } from '../support/redis-topologies.js';
import { failoverSuite } from './redis-failover.js';

// Cluster mode behind Redis Sentinel (a primary, a replica, three sentinels): the primary is killed and the
// sentinels promote the replica; see redis-failover.ts for what every subscriber must see.

failoverSuite('Redis Sentinel: the primary killed (SIGKILL), the replica promoted', () => startSentinelTopology());
