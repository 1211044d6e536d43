import type { ServerResponse } from 'node:http';

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
  const open = new Set<ServerResponse>();
  let draining = false;
  return {
    get active() {
      return draining;
    },
    track(res) {
      if (draining) return closeAfter(res);
      open.add(res);
      res.once('close', () => open.delete(res));
    },
    begin() {
      draining = true;
      for (const res of open) closeAfter(res);
      open.clear();
    },
  };
}
