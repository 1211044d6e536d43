import pLimit from 'p-limit';
import { listAllGifts } from '../upstream/gift-pages.js';
import type { Gift, UpstreamClient } from '../upstream/types.js';
import { isCancelled, isFinal } from './reward-state.js';

// Cancelling a whole order: the upstream has no such endpoint (docs/reward-api.md), so the gateway cancels each
// unredeemed reward. It first pages through every reward (collecting before cancelling, so offsets do not
// shift under it), then cancels with bounded concurrency. Calling it again is safe: cancelled rewards count
// as already final and are not touched. A cancel whose answer was lost may still have happened, so before any
// reward is reported `failed` the rewards are read again: one that now stands cancelled was cancelled.

const CONCURRENCY = 4;

export interface CancelOutcome {
  cancelled: number;
  alreadyFinal: number;
  /** Uuids of rewards whose cancel failed; calling again retries exactly these. */
  failed: string[];
}

// Sorted so paging is stable while nothing changes.
const readAll = (client: UpstreamClient, campaignUuid: string) => listAllGifts(client, { campaignUuid, sort: 'status', order: 'asc' });

export async function cancelUnredeemed(client: UpstreamClient, campaignUuid: string): Promise<CancelOutcome> {
  const gifts = await readAll(client, campaignUuid);
  // Whatever is not final is tried, an unknown status included: the upstream decides (reward-state.ts says why).
  const open = gifts.filter((gift) => !isFinal(gift));
  const outcome: CancelOutcome = { cancelled: 0, alreadyFinal: gifts.length - open.length, failed: [] };
  const limit = pLimit(CONCURRENCY);
  await Promise.all(
    open.map((gift) =>
      limit(async () => {
        try {
          await client.cancelGift(gift.uuid);
          outcome.cancelled += 1;
        } catch {
          outcome.failed.push(gift.uuid);
        }
      }),
    ),
  );
  return outcome.failed.length === 0 ? outcome : confirmFailures(client, campaignUuid, outcome);
}

/** Moves every "failed" reward that the upstream now shows cancelled to `cancelled`. */
async function confirmFailures(client: UpstreamClient, campaignUuid: string, outcome: CancelOutcome): Promise<CancelOutcome> {
  let now: Gift[];
  try {
    now = await readAll(client, campaignUuid);
  } catch {
    // Unconfirmed stays `failed`: calling again is safe and skips whatever did get cancelled.
    return outcome;
  }
  const cancelled = new Set(now.filter(isCancelled).map((g) => g.uuid));
  const failed = outcome.failed.filter((uuid) => !cancelled.has(uuid));
  return { ...outcome, cancelled: outcome.cancelled + outcome.failed.length - failed.length, failed };
}
