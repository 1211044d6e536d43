// When a failed delivery is tried again: exponential from WEBHOOK_RETRY_BASE_MS, with jitter so endpoints that
// failed together (a receiver that was down) do not all come back at the same instant.

/** No single wait is longer than this, however many retries came before (a day's window still sees ~20 tries). */
export const MAX_RETRY_DELAY_MS = 3_600_000;

/** The wait before retry `n` (1 = the first retry): uniform in [d/2, d], d = base × 2^(n-1), capped. */
export function retryDelay(baseMs: number, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(retry - 1, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
