import { Registry, type Entry } from '../shared/registry.js';

// What may end an upstream call early, and how the waits of a call (a queue wait, an attempt, a backoff pause)
// hear of it. A call has up to two stop signals: its caller's own (say, a live poller being closed) and its
// scope's (the gateway's stop deadline). Hundreds of waits share the same few signals at any moment, so each
// signal gets one 'abort' listener for its lifetime, which wakes the waits registered on it: an
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

/** A wait's registrations on its stop signals, ended once it is over (`end` may be called again: a no-op). */
export interface Watching {
  end(): void;
}

class Watch implements Watching {
  constructor(
    private own: Entry | null,
    private scope: Entry | null,
  ) {}

  end(): void {
    this.own?.remove();
    this.scope?.remove();
    this.own = this.scope = null;
  }
}

/** For waits with no stop signal to register on. */
const UNWATCHED: Watching = { end() {} };

// Weak: a signal (and its waits) is collected when nothing else holds it; its listener, which holds the
// registry, is only reachable from the signal. A registry, not a Set: the gateway's own stop signal lives as long
// as the process, and every upstream attempt, queue wait and retry pause comes and goes on it (shared/registry.ts).
const registries = new WeakMap<AbortSignal, Registry<Stoppable>>();

export function stopped(stops: Stops): boolean {
  return stops.own?.aborted === true || stops.scope?.aborted === true;
}

function waitsOn(signal: AbortSignal): Registry<Stoppable> {
  let waits = registries.get(signal);
  if (!waits) {
    const created = (waits = new Registry<Stoppable>());
    registries.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        // The waits registered when it fired, each stopped once. Stopping one may end others first (a freed
        // bulkhead slot admits a waiter); their stop is then a no-op, as Stoppable requires. A wait that throws
        // is a defect, but it must not keep the rest from hearing the stop, nor take the process down as an
        // uncaught exception (with every other caller's writes in flight): it is reported as a warning.
        for (const wait of created.drain()) {
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
  return waits;
}

/**
 * Registers `wait` with the call's stop signals until the returned registration ends; the caller has checked
 * `stopped` first (a past abort is not replayed).
 */
export function watch(stops: Stops, wait: Stoppable): Watching {
  const own = stops.own ? waitsOn(stops.own).add(wait) : null;
  const scope = stops.scope && stops.scope !== stops.own ? waitsOn(stops.scope).add(wait) : null;
  return own || scope ? new Watch(own, scope) : UNWATCHED;
}

/** How many waits a stop of `signal` would wake now: what is still registered on it (tests, diagnostics). */
export function watchers(signal: AbortSignal): number {
  return registries.get(signal)?.size ?? 0;
}
