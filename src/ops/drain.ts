import type { ServerResponse } from 'node:http';
import { Registry } from '../shared/registry.js';

// The draining state of a stopping gateway. Once draining, /ready answers 503 so load balancers stop sending,
// and every response tells its client to close the connection (`Connection: close`): Node keeps an idle
// keep-alive connection open after server.close() until its timeout, so without this a finished request
// would hold the shutdown back for seconds. Responses already under way get the header too when their
// headers are not sent yet.

export interface Drain {
  readonly active: boolean;
  /** Call for every request; tracks it until its response closes. */
  track(res: ServerResponse): void;
  begin(): void;
}

function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('connection', 'close');
}

export function createDrain(): Drain {
  // Every request comes and goes here: a registry, not a Set, keeps nothing of a response that has closed
  // (shared/registry.ts).
  const open = new Registry<ServerResponse>();
  let draining = false;
  return {
    get active() {
      return draining;
    },
    track(res) {
      if (draining) return closeAfter(res);
      const entry = open.add(res);
      res.once('close', () => entry.remove());
    },
    begin() {
      draining = true;
      for (const res of open.drain()) closeAfter(res);
    },
  };
}
