// The one description of `replayed` on every create payload.
export const REPLAYED =
  'True when an order with this id already existed, so the upstream answered from that earlier request ' +
  '(`campaign` shows the order as it stands now, not as that answer had it). False for the call that created ' +
  'the order, even when the gateway had to retry it. Null when the gateway could not tell (its lookup failed). ' +
  'Two identical creates sent at the same moment may both say false.';
