// The capacity fault: the reward API's adaptive rate limit as a token bucket of `per_second` tokens a second,
// at most `burst` at once. A request (any route) finding the bucket empty is answered 429, as production
// answers a caller over its unpublished limit. Tests and the bench use it to watch the gateway's adaptive
// limit find the rate and stay below it.
import { z } from 'zod';

export const capacitySchema = z.object({
  per_second: z.number().positive().max(100_000),
  burst: z.number().int().positive().max(100_000).optional(),
});

export type CapacitySetting = z.infer<typeof capacitySchema>;

export class Capacity {
  private setting: { perSecond: number; burst: number } | null = null;
  private tokens = 0;
  private at = 0;

  set(setting: CapacitySetting | null): void {
    this.setting = setting && { perSecond: setting.per_second, burst: setting.burst ?? Math.max(1, Math.ceil(setting.per_second)) };
    this.tokens = this.setting?.burst ?? 0;
    this.at = performance.now();
  }

  get current(): { per_second: number; burst: number } | null {
    return this.setting && { per_second: this.setting.perSecond, burst: this.setting.burst };
  }

  /** True when the request may be served; false: answer 429. */
  admit(): boolean {
    if (!this.setting) return true;
    const now = performance.now();
    this.tokens = Math.min(this.setting.burst, this.tokens + ((now - this.at) * this.setting.perSecond) / 1000);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
