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

/**
 * The failure to report when listening on `port` (set by the variable `portVariable`) failed: a
 * StartUpFailure for the errors a setting fixes, the error itself otherwise.
 */
export function listenFailure(error: unknown, portVariable: string, port: number, host: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reason = code ? REASONS[code] : undefined;
  if (reason) {
    return new StartUpFailure(`Cannot listen: ${reason(port)}. Set ${portVariable} to a free port (or 0 for any free port) and start again.`);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new StartUpFailure(`Cannot listen on ${host}: not an address of this machine. Set HOST to one of its addresses (or 0.0.0.0) and start again.`);
  }
  return error;
}
