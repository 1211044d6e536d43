import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { McpSubscriptionRecords } from '../cluster/mcp-subscriptions.js';
import { resourceHash } from './order-resource.js';
import type { GraphQLAnswer } from './tool-results.js';

// A session's event stream (GET /mcp): `notifications/resources/updated` for each resource the session
// subscribed to, through whichever replica, whenever what reading it answers changes. Each subscribed resource
// is followed by a live query of it run as the caller (`watch`), so the change is the one the gateway's pollers
// see, under the same one-poller-per-order lease, limits and scopes as any live query. A resource is compared
// with what the client was last told of it (or saw when subscribing), kept with the subscription: a change
// made while no stream was open, or before this one read the resource, is still notified once the stream is.

/** How long a client waits before opening the stream again after it ended (the SSE `retry` field). */
const RECONNECT_MS = 2_000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/** Waits before following a resource again after its live query failed or ended, growing to the last. */
const RETRY_DELAYS_MS = [1_000, 5_000, 30_000] as const;

export interface ResourceStreamOptions {
  records: McpSubscriptionRecords;
  /** The live results of reading `uri` as the caller whose stream it is, until `signal` aborts. */
  watch(uri: string, req: IncomingMessage, signal: AbortSignal): AsyncIterable<GraphQLAnswer>;
  /** A resource could not be followed for now (refused or failed): said to the log, retried later. */
  onWatchFailed(uri: string, reason: string): void;
  /** The waits between attempts, growing to the last (RETRY_DELAYS_MS unless a test shortens them). */
  retryDelaysMs?: readonly number[];
}

/**
 * Serves the stream of `session` (the store's key of the caller's session) on `res` until either side closes, or
 * until `endsAt` (an access token's expiry, with the clock tolerance): the stream is then ended, as a WebSocket of
 * that token is closed, and the client opens it again with a fresh token; its subscriptions are the session's, so
 * nothing is lost. Past it, every live query of the stream would be refused while the client waited for changes.
 */
export function serveResourceStream(
  { records, watch, onWatchFailed, retryDelaysMs = RETRY_DELAYS_MS }: ResourceStreamOptions,
  session: string,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string>,
  endsAt: number | null,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', ...headers });
  let eventId = 0;
  // The priming event MCP asks for: an id and the reconnection delay before any message.
  res.write(`id: ${eventId}\nretry: ${RECONNECT_MS}\ndata: \n\n`);
  const updated = (uri: string) =>
    res.write(
      `id: ${++eventId}\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } })}\n\n`,
    );

  const closed = new AbortController();
  const followers = new Map<string, AbortController>();

  async function follow(uri: string, told: string, signal: AbortSignal): Promise<void> {
    // A failure is said once, not at every attempt (a follow at the caller's cap is refused every 30 s for as
    // long as the stream is open, for each such subscription of each stream): again when its reason changes,
    // or once the resource was followed in between.
    let said: string | null = null;
    const failed = (reason: string) => {
      if (reason !== said) onWatchFailed(uri, reason);
      said = reason;
    };
    for (let attempt = 0; !signal.aborted; attempt += 1) {
      try {
        for await (const answer of watch(uri, req, signal)) {
          if (!answer.data) {
            failed(answer.errors?.[0]?.message ?? 'the live query answered no data');
            break;
          }
          attempt = 0;
          said = null;
          const hash = resourceHash(answer.data);
          if (hash === told || signal.aborted) continue;
          told = hash;
          updated(uri);
          await records.seen(session, uri, hash).catch(() => undefined);
        }
      } catch (error) {
        if (signal.aborted) return;
        failed(error instanceof Error ? error.message : String(error));
      }
      const delay = retryDelaysMs[Math.min(attempt, retryDelaysMs.length - 1)];
      await sleep(delay, undefined, { signal }).catch(() => undefined);
    }
  }

  const stopFollowing = records.follow(
    session,
    (resources) => {
      for (const [uri, follower] of followers)
        if (!resources.has(uri)) {
          follower.abort();
          followers.delete(uri);
        }
      for (const [uri, told] of resources) {
        if (followers.has(uri)) continue;
        const follower = new AbortController();
        followers.set(uri, follower);
        void follow(uri, told, AbortSignal.any([follower.signal, closed.signal]));
      }
    },
    // A newer stream of the session took over (MCP sends a message on one stream, never several): this one ends.
    () => end(),
  );
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  // setTimeout's longest delay is 2^31 - 1 ms (~24 days); no access token lives that long.
  const expiry = endsAt === null ? undefined : setTimeout(() => end(), Math.min(Math.max(endsAt - Date.now(), 0), 2 ** 31 - 1)).unref();
  /** Stops all the stream does, once: at its close, or before it ends itself. */
  let stopped = false;
  function stop(): void {
    if (stopped) return;
    stopped = true;
    clearInterval(keepAlive);
    clearTimeout(expiry);
    stopFollowing();
    closed.abort();
  }
  /**
   * The gateway ends the stream: everything stops first, since a write after the end (a change read in the same
   * turn, the keep-alive) is an 'error' event on the response that nothing handles, which ends the process.
   */
  function end(): void {
    stop();
    res.end();
  }
  res.once('close', stop);
}
