import { listAllGifts } from '../live/gift-pages.js';
import type { Gift, UpstreamClient } from '../upstream/types.js';

// Cancelling a whole order: the upstream has no such endpoint (upstream-facts), so the gateway cancels each
// unredeemed reward. It first pages through every reward (collecting before cancelling, so offsets do not
// shift under it), then cancels with bounded concurrency. Calling it again is safe: cancelled rewards count
// as already final and are not touched.

const CONCURRENCY = 4;

export interface CancelOutcome {
  cancelled: number;
  alreadyFinal: number;
  /** Uuids of rewards whose cancel failed; calling again retries exactly these. */
  failed: string[];
}

export async function cancelUnredeemed(
  client: UpstreamClient,
  campaignUuid: string,
  isOpen: (gift: Gift) => boolean,
): Promise<CancelOutcome> {
  // Sorted so paging is stable while nothing changes; pages advance by what arrived, whatever the upstream's cap.
  const gifts = await listAllGifts(client, { campaignUuid, sort: 'status', order: 'asc' });
  const open = gifts.filter(isOpen);
  const outcome: CancelOutcome = { cancelled: 0, alreadyFinal: gifts.length - open.length, failed: [] };
  const queue = [...open];
  const worker = async () => {
    for (let gift = queue.shift(); gift; gift = queue.shift()) {
      try {
        await client.cancelGift(gift.uuid);
        outcome.cancelled += 1;
      } catch {
        outcome.failed.push(gift.uuid);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, open.length) }, worker));
  return outcome;
}
