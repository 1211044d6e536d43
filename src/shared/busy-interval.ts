// A repeating timer that runs only while it has something to do. Renewal and keep-alive loops that tick over
// nothing still wake the process on every tick: an idle gateway should not wake at all (its CPU while idle is
// held against plain servers', which have no timers). The owner calls `poke()` when it adds work (the loop starts
// unless it runs already); a tick that finds `busy()` false stops it until the next poke.

export interface BusyInterval {
  /** Starts the loop if it is not running, unless there is nothing to do. */
  poke(): void;
  /** Stops the loop for good. */
  close(): void;
}

export function busyInterval(busy: () => boolean, tick: () => void, everyMs: number): BusyInterval {
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  const run = () => (busy() ? tick() : stop());
  return {
    poke() {
      if (timer || closed || !busy()) return;
      // Unref'd: a loop of renewals never keeps a process alive that is otherwise done.
      timer = setInterval(run, everyMs).unref();
    },
    close() {
      closed = true;
      stop();
    },
  };
}
