// What may end an upstream call early, and how the waits of a call (a queue wait, an attempt, a backoff pause)
// hear of it. A call has up to two stop signals: its caller's own (say, a live poller being closed) and its
// scope's (the gateway's stop deadline). Hundreds of waits share the same few signals at any moment, so each
// signal gets one 'abort' listener for its lifetime, which wakes the set of waits registered on it: an
// add/removeEventListener pair and a linked AbortController per call and per attempt were a measurable share
// of the gateway's CPU per upstream call.

export interface Stops {
  own?: AbortSignal | undefined;
  scope?: AbortSignal | undefined;
}

/** Something waiting that a stop ends; `stop` may come after the wait ended by itself, and then does nothing. */
export interface Stoppable {
  stop(): void;
}

export const NO_STOPS: Stops = {};

// Weak: a signal (and the set of its waits) is collected when nothing else holds it; its listener, which
// holds the set, is only reachable from the signal.
const waits = new WeakMap<AbortSignal, Set<Stoppable>>();

export function stopped(stops: Stops): boolean {
  return stops.own?.aborted === true || stops.scope?.aborted === true;
}

function waitsOn(signal: AbortSignal): Set<Stoppable> {
  let set = waits.get(signal);
  if (!set) {
    const created = (set = new Set());
    waits.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        // The waits registered when it fired, each stopped once. Stopping one may end others first (a freed
        // bulkhead slot admits a waiter); their stop is then a no-op, as Stoppable requires. A wait that throws
        // is a defect, but it must not keep the rest from hearing the stop, nor take the process down as an
        // uncaught exception (with every other caller's writes in flight): it is reported as a warning.
        const woken = [...created];
        created.clear();
        for (const wait of woken) {
          try {
            wait.stop();
          } catch (error) {
            process.emitWarning(error instanceof Error ? error : String(error), 'UpstreamStopWarning');
          }
        }
      },
      { once: true },
    );
  }
  return set;
}

/** Registers `wait` until `unwatch`; the caller has checked `stopped` first (a past abort is not replayed). */
export function watch(stops: Stops, wait: Stoppable): void {
  if (stops.own) waitsOn(stops.own).add(wait);
  if (stops.scope && stops.scope !== stops.own) waitsOn(stops.scope).add(wait);
}

/** How many waits a stop of `signal` would wake now: what is still registered on it (tests, diagnostics). */
export function watchers(signal: AbortSignal): number {
  return waits.get(signal)?.size ?? 0;
}

export function unwatch(stops: Stops, wait: Stoppable): void {
  if (stops.own) waits.get(stops.own)?.delete(wait);
  if (stops.scope) waits.get(stops.scope)?.delete(wait);
}
