// What the sandbox received, for tests that assert how the gateway used the upstream (how many calls per
// route, how many orders an id really created, how much concurrency reached it, which request ids it sent).

/** Request ids kept in stats: the most recent ones, so a long benchmark run cannot grow the map without end. */
const REQUEST_IDS_KEPT = 1_000;

export interface StatsSnapshot {
  requests: Record<string, number>;
  creates: Record<string, number>;
  /** Calls per `x-request-id` they carried (calls without one are not listed). */
  requestIds: Record<string, number>;
  inFlightMax: number;
}

export class SandboxStats {
  private requests = new Map<string, number>();
  private creates = new Map<string, number>();
  private requestIds = new Map<string, number>();
  private inFlight = 0;
  private inFlightMax = 0;

  countRequest(route: string): void {
    this.requests.set(route, (this.requests.get(route) ?? 0) + 1);
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
    this.inFlightMax = this.inFlight;
  }

  snapshot(): StatsSnapshot {
    return {
      requests: Object.fromEntries(this.requests),
      creates: Object.fromEntries(this.creates),
      requestIds: Object.fromEntries(this.requestIds),
      inFlightMax: this.inFlightMax,
    };
  }
}
