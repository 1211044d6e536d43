import { subscribe, unsubscribe } from 'node:diagnostics_channel';

// What counts as the gateway having work: node:http starting to serve a request, or undici creating one to the
// reward API (every operation's call and every poll). Both announce themselves on node's diagnostics channels,
// so no other part of the gateway reports activity. Read by what should run only while there is work: the
// event-loop delay sampler (event-loop-lag.ts) and the heap trim (heap-trim.ts).

const CHANNELS = ['http.server.request.start', 'undici:request:create'];

/** Calls `listener` on every sign of work; returns what unsubscribes it. */
export function onActivity(listener: () => void): () => void {
  // diagnostics_channel passes each message and the channel's name; the listeners want neither.
  const onMessage = () => listener();
  for (const name of CHANNELS) subscribe(name, onMessage);
  return () => {
    for (const name of CHANNELS) unsubscribe(name, onMessage);
  };
}
