import { Counter, Gauge, type Registry } from 'prom-client';
import type { Live } from '../live/live.js';

// The live hub behind subscriptions: how many subscriptions and pollers run now (read from the hub when
// scraped), and how its polls go. Poll series are labelled by feed (`campaign`, `account`, `funds`), never by
// the watched key, which holds an order uuid.

type LiveSource = Pick<Live, 'listen' | 'stats' | 'leases'>;

/** `campaign:<uuid>` → `campaign`; `funds` → `funds`. */
function feedOf(key: string): string {
  return key.split(':', 1)[0] ?? key;
}

/** Creates the live series; the returned function connects a hub to them and returns the disconnection. */
export function liveMetrics(registry: Registry): (live: LiveSource, redisUp?: () => boolean | null) => () => void {
  let source: LiveSource | null = null;
  let redis: (() => boolean | null) | null = null;
  new Gauge({
    name: 'reward_gateway_live_leases',
    help: 'Watched keys whose upstream poller runs on this replica (it holds their lease)',
    registers: [registry],
    collect() {
      this.set(source?.leases() ?? 0);
    },
  });
  new Gauge({
    name: 'reward_gateway_live_subscribers',
    help: 'Subscriptions served by this replica',
    registers: [registry],
    collect() {
      this.set(source?.stats().subscribers ?? 0);
    },
  });
  new Gauge({
    name: 'reward_gateway_redis_up',
    help: 'Whether Redis answers (1) or not (0); absent meaning: in-memory mode reports 0',
    registers: [registry],
    collect() {
      this.set(redis?.() ? 1 : 0);
    },
  });
  const takeovers = new Counter({
    name: 'reward_gateway_live_takeovers_total',
    help: 'Watched keys this replica took over from a poller that vanished without releasing them',
    registers: [registry],
  });
  const events = new Counter({
    name: 'reward_gateway_live_events_total',
    help: 'Live events this replica appended to logs (published) and read from them for its subscribers (received)',
    labelNames: ['direction'],
    registers: [registry],
  });
  new Gauge({
    name: 'reward_gateway_subscriptions_active',
    help: 'GraphQL subscriptions currently served by the live hub',
    registers: [registry],
    collect() {
      this.set(source?.stats().subscribers ?? 0);
    },
  });
  new Gauge({
    name: 'reward_gateway_live_pollers',
    help: 'Upstream pollers currently running (one per watched key, shared by its subscribers)',
    registers: [registry],
    collect() {
      this.set(source?.stats().pollers ?? 0);
    },
  });
  const polls = new Counter({
    name: 'reward_gateway_live_polls_total',
    help: 'Successful upstream polls of the live hub, by feed',
    labelNames: ['feed'],
    registers: [registry],
  });
  const pollErrors = new Counter({
    name: 'reward_gateway_live_poll_errors_total',
    help: 'Failed upstream polls of the live hub, by feed (the poller backs off and keeps trying)',
    labelNames: ['feed'],
    registers: [registry],
  });

  return (live, redisUp) => {
    source = live;
    redis = redisUp ?? null;
    const stopListening = live.listen({
      onPoll: ({ key }) => polls.inc({ feed: feedOf(key) }),
      onPollError: ({ key }) => pollErrors.inc({ feed: feedOf(key) }),
      onTakeover: () => takeovers.inc(),
      onPublish: (n) => events.inc({ direction: 'published' }, n),
      onReceive: (n) => events.inc({ direction: 'received' }, n),
    });
    return () => {
      stopListening();
      if (source === live) source = null;
    };
  };
}
