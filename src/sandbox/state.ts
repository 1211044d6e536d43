// The whole in-memory store of one sandbox instance. Nothing lives in module globals, so several sandboxes
// can run in one process; a reset swaps in a fresh SandboxState.
import { CURRENCIES, type Currency } from './catalog.js';
import { SandboxClock } from './clock.js';
import type { Fees } from './fees.js';

export interface Balance {
  available: number;
  pending: number;
  reserved: number;
}

export type DeliveryType = 'SERVICE_EMAIL' | 'SHORTLINK' | 'DIRECT_LINK' | 'EMBEDDED';
export type CampaignStatus = 'API_CREATING' | 'AWAITING_FUNDS' | 'CAMPAIGN_CREATED';
export type ClaimStatus = 'SENT_AND_REDEEMABLE' | 'REDEEMED' | 'EXPIRED' | 'GIVER_CANCELED';
export type DeliveryStatus = 'UNSENT' | 'DELIVERED' | 'LINKCREATED' | 'TEMPORARILY_UNDELIVERABLE' | 'UNDELIVERABLE';

/** One contact result exactly as the wire spells it (including production's `added_succesfully`). */
export interface ContactResult {
  email: string;
  firstname: string | null;
  lastname: string | null;
  message: string;
  added_succesfully: boolean;
}

export interface Recipient {
  email: string;
  name: string | null;
}

export interface Order {
  /** Creation sequence: the order in which waiting orders are funded. */
  seq: number;
  id: string;
  uuid: string;
  deliveryType: DeliveryType;
  status: CampaignStatus;
  /** False while the order waits for funds; its gifts exist only once it is funded. */
  funded: boolean;
  /** Set by the first tick after the order was funded. */
  processed: boolean;
  currency: Currency;
  priceInCents: number;
  brandCodes: string[];
  region: string | null;
  companyName: string;
  message: string;
  subject: string | null;
  giftTemplate: string | null;
  contacts: ContactResult[] | null;
  /** One gift is created per recipient (email) or per link. */
  recipients: Recipient[] | null;
  giftCount: number;
  linkCount: number | null;
  expiry: string | null;
  /** End of the expiry day, Pacific time: the instant the order's unclaimed rewards expire. */
  expiresAt: Date | null;
  fees: Fees;
  createdAt: Date;
  gifts: Gift[];
}

export interface Gift {
  seq: number;
  uuid: string;
  order: Order;
  status: ClaimStatus;
  deliveryStatus: DeliveryStatus;
  /** The part of the order's total this reward holds in `reserved` while it is claimable. */
  costInCents: number;
  brandCode: string | null;
  recipientEmail: string | null;
  recipientName: string | null;
  /** Sandbox rule: every email goes to the account owner, whatever the recipient. */
  deliveredTo: string | null;
  redeliveryCount: number;
  createdAt: Date;
  deliveredAt: Date | null;
  redeemedAt: Date | null;
  /** The claim URL: a direct link, a short link or an embedded gift link. */
  link: string | null;
}

export interface StoredResponse {
  /** Route and canonical body of the request that created it: a replay must match exactly. */
  fingerprint: string;
  body: string;
}

export interface SandboxState {
  clock: SandboxClock;
  balances: Record<Currency, Balance>;
  ordersByUuid: Map<string, Order>;
  ordersById: Map<string, Order>;
  gifts: Map<string, Gift>;
  /** Answers of accepted creating POSTs (orders and top-ups) by caller id. */
  idempotent: Map<string, StoredResponse>;
  /** Addresses seen before, so a contact result can say "Existing contact". */
  knownContacts: Set<string>;
  /** Funded orders the next tick has to process. */
  unprocessed: Order[];
  nextSeq: number;
}

export function createState(startingBalances: Record<Currency, number>): SandboxState {
  const balances = {} as Record<Currency, Balance>;
  for (const c of CURRENCIES) balances[c] = { available: startingBalances[c], pending: 0, reserved: 0 };
  return {
    clock: new SandboxClock(),
    balances,
    ordersByUuid: new Map(),
    ordersById: new Map(),
    gifts: new Map(),
    idempotent: new Map(),
    knownContacts: new Set(),
    unprocessed: [],
    nextSeq: 1,
  };
}

export function nextSeq(state: SandboxState): number {
  return state.nextSeq++;
}
