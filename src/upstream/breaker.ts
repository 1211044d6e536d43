// The circuit breaker: after UPSTREAM_BREAKER_FAILURES attempts in a row fail for the upstream's sake (no
// connection, a timeout, a 5xx), the circuit opens. While it is open nothing is sent: reads fail at once (no
// wait on timeouts) and writes are refused with nothing sent, so the caller retries later with the same id.
// Every UPSTREAM_BREAKER_HALF_OPEN_MS a probe, GET /ping, asks whether the upstream is back (never a write, and
// never a caller's request: cockatiel would make the first request after the pause the test, a create among
// them); its success closes the circuit, its failure keeps it open for another pause.
// cockatiel's circuitBreaker with a ConsecutiveBreaker keeps the state and its transitions; this module decides
// what counts as a failure, runs the probes on a timer and reports each transition (one log line each).
// Per replica: in cluster mode each replica finds out on its own, within a few attempts of its own traffic.

import { circuitBreaker, CircuitState, ConsecutiveBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import { detached, spanEvent } from '../telemetry/spans.js';
import { UpstreamError } from './errors.js';
import type { WireResponse } from './transport.js';
import type { CircuitStateName } from './types.js';

const NAMES: Record<CircuitState, CircuitStateName> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half_open',
  [CircuitState.Isolated]: 'open',
};

export interface BreakerOptions {
  /** Attempts failing in a row that open the circuit. */
  failures: number;
  /** How long the circuit stays open before a probe. */
  halfOpenAfterMs: number;
  /** One GET /ping; a 5xx answer or a network failure or timeout (thrown) keeps the circuit open. */
  probe: () => Promise<WireResponse>;
  onTransition: (from: CircuitStateName, to: CircuitStateName) => void;
}

/** A probe that did not get through for another reason (its budget, an abort): it proves nothing, so it fails. */
class ProbeFailed extends Error {}

/** The upstream is failing, not refusing us: what counts towards opening the circuit. */
function upstreamDown(error: Error): boolean {
  return error instanceof ProbeFailed || (error instanceof UpstreamError && (error.kind === 'network' || error.kind === 'timeout'));
}

export class UpstreamBreaker {
  readonly #policy: CircuitBreakerPolicy;
  readonly #options: BreakerOptions;
  #state: CircuitStateName = 'closed';
  #openedAt = 0;
  #probe: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: BreakerOptions) {
    this.#options = options;
    this.#policy = circuitBreaker(
      handleWhen(upstreamDown).orWhenResult((res) => (res as WireResponse).status >= 500),
      { halfOpenAfter: options.halfOpenAfterMs, breaker: new ConsecutiveBreaker(options.failures) },
    );
    this.#policy.onStateChange((state) => {
      const to = NAMES[state];
      const from = this.#state;
      if (to === from) return;
      this.#state = to;
      if (to === 'open') {
        this.#openedAt = Date.now();
        this.#scheduleProbe();
      }
      // On the span active where the outcome that moved it was counted (the operation's, a loader batch's, a poll's).
      spanEvent('upstream.breaker.transition', () => ({ 'reward.breaker.from': from, 'reward.breaker.to': to }));
      options.onTransition(from, to);
    });
  }

  get state(): CircuitStateName {
    return this.#state;
  }

  /** While the circuit is not closed: whole seconds until the next probe may close it (at least 1). */
  retryAfterSeconds(): number {
    const left = this.#openedAt + this.#options.halfOpenAfterMs - Date.now();
    return Math.max(1, Math.ceil(left / 1000));
  }

  /**
   * Sends one attempt through the breaker, which counts its outcome, or throws `refused()` with nothing sent
   * when the circuit is not closed: a caller's attempt is never the half-open test (the probe is), and it
   * never meets cockatiel's own BrokenCircuitError.
   */
  run(send: () => Promise<WireResponse>, refused: () => Error): Promise<WireResponse> {
    if (this.#state !== 'closed') return Promise.reject(refused());
    return this.#policy.execute(send);
  }

  close(): void {
    this.#closed = true;
    if (this.#probe) clearTimeout(this.#probe);
    this.#probe = null;
  }

  #scheduleProbe(): void {
    if (this.#closed) return;
    if (this.#probe) clearTimeout(this.#probe);
    // A few milliseconds past the pause: cockatiel measures it with Date.now() and refuses a test a hair early.
    // Detached: the timer would carry the context of whatever operation's failure opened the circuit, and the
    // probe's request is no part of it (the transition is an event on that operation's span already).
    this.#probe = detached(() => setTimeout(() => void this.#runProbe(), this.#options.halfOpenAfterMs + 5));
    this.#probe.unref();
  }

  async #runProbe(): Promise<void> {
    this.#probe = null;
    if (this.#closed || this.#state !== 'open') return;
    try {
      // In the open state past the pause, cockatiel turns this call into the half-open test.
      // cockatiel counts an error it does not handle as a success, which would close the circuit.
      await this.#policy.execute(() =>
        this.#options.probe().catch((error: unknown) => {
          throw error instanceof Error && upstreamDown(error) ? error : new ProbeFailed('probe did not get through');
        }),
      );
    } catch {
      // A failed probe reopens the circuit (and schedules the next); anything else (the pause not over, an
      // abort) leaves it open with no probe pending, so one is scheduled here.
    }
    if (this.#state === 'open' && !this.#probe) this.#scheduleProbe();
  }
}
