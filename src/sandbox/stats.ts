// What the sandbox received, for tests that assert how the gateway used the upstream (how many calls per
// route, how many orders an id really created, how much concurrency reached it, which request ids it sent).

/** Request ids kept in stats: the most recent ones, so a long benchmark run cannot grow the map without end. */
const REQUEST_IDS_KEPT = 1_000;
/** Seconds of per-second counts kept: ten minutes, a long bench run. */
const SECONDS_KEPT = 600;

export interface StatsSnapshot {
  requests: Record<string, number>;
  creates: Record<string, number>;
  /** Calls per `x-request-id` they carried (calls without one are not listed). */
  requestIds: Record<string, number>;
  inFlightMax: number;
  /**
   * Requests received per second of the wall clock (unix seconds → count), the last ten minutes, and those of
   * them the capacity fault answered 429: what "never past the budget in any second" is checked against.
   */
  perSecond: Record<string, number>;
  throttledPerSecond: Record<string, number>;
}

export class SandboxStats {
  private requests = new Map<string, number>();
  private creates = new Map<string, number>();
  private requestIds = new Map<string, number>();
  private inFlight = 0;
  private inFlightMax = 0;
  private perSecond = new Map<number, number>();
  private throttledPerSecond = new Map<number, number>();

  countRequest(route: string): void {
    this.requests.set(route, (this.requests.get(route) ?? 0) + 1);
  }

  /** Every request that reached the API (any route, known or not), by second of arrival. */
  countArrival(): void {
    bump(this.perSecond, Math.floor(Date.now() / 1000));
  }

  countThrottled(): void {
    bump(this.throttledPerSecond, Math.floor(Date.now() / 1000));
  }

  countRequestId(id: string): void {
    const n = (this.requestIds.get(id) ?? 0) + 1;
    // Delete first so the id moves to the end: the map's order is then least recently seen first.
    this.requestIds.delete(id);
    this.requestIds.set(id, n);
    if (this.requestIds.size > REQUEST_IDS_KEPT) this.requestIds.delete(this.requestIds.keys().next().value!);
  }

  countCreate(callerId: string): void {
    this.creates.set(callerId, (this.creates.get(callerId) ?? 0) + 1);
  }

  /** Call on arrival; the returned function ends the request (call it once the socket is done with it). */
  enter(): () => void {
    this.inFlight++;
    this.inFlightMax = Math.max(this.inFlightMax, this.inFlight);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight--;
    };
  }

  /** Forgets the counts; requests still being served keep counting towards inFlightMax. */
  reset(): void {
    this.requests.clear();
    this.creates.clear();
    this.requestIds.clear();
    this.perSecond.clear();
    this.throttledPerSecond.clear();
    this.inFlightMax = this.inFlight;
  }

  snapshot(): StatsSnapshot {
    return {
      requests: Object.fromEntries(this.requests),
      creates: Object.fromEntries(this.creates),
      requestIds: Object.fromEntries(this.requestIds),
      inFlightMax: this.inFlightMax,
      perSecond: Object.fromEntries(this.perSecond),
      throttledPerSecond: Object.fromEntries(this.throttledPerSecond),
    };
  }
}

function bump(counts: Map<number, number>, second: number): void {
  counts.set(second, (counts.get(second) ?? 0) + 1);
  for (const kept of counts.keys()) {
    if (kept > second - SECONDS_KEPT) break;
    counts.delete(kept);
  }
}
