// What the sandbox received, for tests that assert how the gateway used the upstream (how many calls per
// route, how many orders an id really created, how much concurrency reached it).

export interface StatsSnapshot {
  requests: Record<string, number>;
  creates: Record<string, number>;
  inFlightMax: number;
}

export class SandboxStats {
  private requests = new Map<string, number>();
  private creates = new Map<string, number>();
  private inFlight = 0;
  private inFlightMax = 0;

  countRequest(route: string): void {
    this.requests.set(route, (this.requests.get(route) ?? 0) + 1);
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
    this.inFlightMax = this.inFlight;
  }

  snapshot(): StatsSnapshot {
    return {
      requests: Object.fromEntries(this.requests),
      creates: Object.fromEntries(this.creates),
      inFlightMax: this.inFlightMax,
    };
  }
}
