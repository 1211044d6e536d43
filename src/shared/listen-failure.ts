// Turns a failed listen() into one sentence naming the variable to change, so a busy port reads as a
// configuration problem rather than a crash.

/** A start-up failure the operator fixes by changing configuration: print the message, no stack. */
export class StartUpFailure extends Error {
  override name = 'StartUpFailure';
}

const REASONS: Record<string, (port: number) => string> = {
  EADDRINUSE: (port) => `port ${port} is already in use`,
  EACCES: (port) => `port ${port} needs privileges this process does not have`,
};

/** Where a server tried to listen, and the environment variables that set it. */
export interface ListenTarget {
  port: number;
  portVariable: string;
  host: string;
  hostVariable: string;
}

/** What to report when listening failed: a StartUpFailure for the errors a setting fixes, else the error. */
export function listenFailure(error: unknown, { port, portVariable, host, hostVariable }: ListenTarget): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reason = code ? REASONS[code] : undefined;
  if (reason) {
    return new StartUpFailure(`Cannot listen: ${reason(port)}. Set ${portVariable} to a free port (or 0 for any free port) and start again.`);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new StartUpFailure(
      `Cannot listen on ${host}: not an address of this machine. Set ${hostVariable} to one of its addresses (or 0.0.0.0) and start again.`,
    );
  }
  return error;
}
