import autocannon, { type Options, type Request } from 'autocannon';

// HTTP load through autocannon: fixed connections, a duration or an exact number of requests, optionally a
// steady overall rate. Latencies are autocannon's (whole milliseconds, 2xx responses only, corrected for
// coordinated omission when a rate is set).

export interface LoadResult {
  /** Answered requests; `sent` adds those still in flight when a timed run ended. */
  requests: number;
  sent: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Connection errors and timeouts, plus non-2xx answers. */
  errors: number;
  non2xx: number;
}

export async function runLoad(options: Options): Promise<LoadResult> {
  // autocannon notices the end of an `amount` run on its one-second tick, so its duration is whole seconds
  // (100 queries in 2.1 s come out as 2 or 3 s: 50 or 33 q/s). The rate is timed here instead, from the start
  // to the last answer.
  const started = performance.now();
  let lastAnswer = started;
  const run = autocannon({ timeout: 10, ...options });
  run.on('response', () => (lastAnswer = performance.now()));
  const result = await run;
  const requests = result.requests.total;
  const seconds = requests > 0 ? (lastAnswer - started) / 1000 : result.duration;
  return {
    requests,
    sent: result.requests.sent,
    seconds: round(seconds, 3),
    perSecond: round(requests / seconds),
    p50Ms: result.latency.p50,
    p90Ms: result.latency.p90,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    errors: result.errors + result.non2xx,
    non2xx: result.non2xx,
  };
}

/** A POST /graphql as autocannon sends it. */
export function graphqlRequest(query: string, variables?: Record<string, unknown>): Request {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  };
}

/** Counts GraphQL answers that carry errors (yoga answers 200 with `errors`), keeping the first few. */
export class ErrorTally {
  count = 0;
  readonly samples: string[] = [];

  /** True when the answer is a clean 200 with data; otherwise counts it. */
  check(status: number, body: string, accept: (json: any) => boolean = () => true): boolean {
    let ok = status === 200;
    if (ok) {
      try {
        const json = JSON.parse(body) as { data?: unknown; errors?: unknown[] };
        ok = !json.errors && json.data != null && accept(json);
      } catch {
        ok = false;
      }
    }
    if (!ok) {
      this.count += 1;
      if (this.samples.length < 5) this.samples.push(`${status} ${body.slice(0, 300)}`);
    }
    return ok;
  }
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
