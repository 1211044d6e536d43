// The sandbox clock is real time plus an offset that only moves forward, so tests can jump to an expiry date
// or let pending funds clear without sleeping, while a sandbox left alone still behaves like the real service.
export class SandboxClock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  get offset(): number {
    return this.offsetMs;
  }
}
