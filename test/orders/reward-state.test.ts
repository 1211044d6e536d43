import { describe, expect, it } from 'vitest';
import { finalStateName, isCancelled, isFinal, OPEN_STATUS } from '../../src/orders/reward-state.js';

// One rule for "is this reward final": the live feeds, cancelGift and cancelCampaign all ask it.

describe('reward state', () => {
  it('redeemed, expired, cancelled and given to charity are final, each with its name', () => {
    expect(['REDEEMED', 'EXPIRED', 'GIVER_CANCELLED', 'TO_CHARITY'].map((status) => [isFinal({ status }), finalStateName({ status })])).toEqual([
      [true, 'redeemed'],
      [true, 'expired'],
      [true, 'cancelled'],
      [true, 'given to charity'],
    ]);
  });

  it('the open status is not final', () => {
    expect(isFinal({ status: OPEN_STATUS })).toBe(false);
    expect(finalStateName({ status: OPEN_STATUS })).toBeNull();
  });

  it('a status the gateway does not know is not final', () => {
    expect(isFinal({ status: 'ON_HOLD' })).toBe(false);
    expect(finalStateName({ status: 'ON_HOLD' })).toBeNull();
  });

  it('only the cancelled status is cancelled', () => {
    expect(['GIVER_CANCELLED', 'REDEEMED', OPEN_STATUS, 'ON_HOLD'].map((status) => isCancelled({ status }))).toEqual([true, false, false, false]);
  });
});
