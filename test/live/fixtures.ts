import { test } from '../support/test.js';
import { startLiveGateway, wsClient, type LiveGateway } from '../support/live.js';

// Bodies of the live suites' own file fixtures (test.extend(name, { scope: 'file' }, …)): a live gateway, each
// with a sandbox of its own, and WebSocket clients of it, each handed to the fixture's onCleanup. vitest tears
// a file's fixtures down in the reverse order of their set-up, so the clients are disposed before the gateway
// they were made of is closed.

type OnCleanup = (cleanup: () => Promise<void> | void) => void;

/** A live gateway with `options`, closed on cleanup. */
export async function liveGatewayFor(onCleanup: OnCleanup, options?: Parameters<typeof startLiveGateway>[0]): Promise<LiveGateway> {
  const gw = await startLiveGateway(options);
  onCleanup(() => gw.close());
  return gw;
}

/** `count` WebSocket clients of `gw` (graphql-ws connects on the first subscription), disposed on cleanup. */
export function wsClientsFor(onCleanup: OnCleanup, gw: LiveGateway, count: number): ReturnType<typeof wsClient>[] {
  const clients = Array.from({ length: count }, () => wsClient(gw.url));
  onCleanup(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
  });
  return clients;
}

/**
 * The `test` of a live suite that needs a live gateway with `env` and one WebSocket client of it (`live`, `ws`),
 * both for the whole file.
 */
export function liveTestWith(env: Record<string, string>) {
  return (
    test
      // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
      .extend('live', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup, { env }))
      .extend('ws', { scope: 'file' }, ({ live }, { onCleanup }) => wsClientsFor(onCleanup, live, 1)[0]!)
  );
}
