import { Counter, Gauge, type Registry } from 'prom-client';
import type { Live } from '../live/live.js';

// The live hub behind subscriptions: how many subscriptions and pollers run now (read from the hub when
// scraped), and how its polls go. Poll series are labelled by feed (`campaign`, `account`, `funds`), never by
// the watched key, which holds an order uuid.

type LiveSource = Pick<Live, 'listen' | 'stats'>;

/** `campaign:<uuid>` → `campaign`; `funds` → `funds`. */
function feedOf(key: string): string {
  return key.split(':', 1)[0] ?? key;
}

/** Creates the live series; the returned function connects a hub to them and returns the disconnection. */
export function liveMetrics(registry: Registry): (live: LiveSource) => () => void {
  let source: LiveSource | null = null;
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

  return (live) => {
    source = live;
    const stopListening = live.listen({
      onPoll: ({ key }) => polls.inc({ feed: feedOf(key) }),
      onPollError: ({ key }) => pollErrors.inc({ feed: feedOf(key) }),
    });
    return () => {
      stopListening();
      if (source === live) source = null;
    };
  };
}
