// zod schemas of what the reward API sends, written as a tolerant reader: unknown fields are dropped, enum-like
// values stay plain strings (a new status must not break a read), both recorded spellings of a field are
// accepted, integers sent as strings are read as integers, and Pacific date-times become instants. Only what
// the gateway cannot do without is required. Spelling variants are folded in normalise.ts, not here.

import { z } from 'zod';
import { parsePacific } from '../shared/pacific-time.js';

// zod's int() is a safe integer (|n| ≤ 2^53 − 1); a string is held to the same bound once converted, since
// past it Number() rounds and money would be read as an amount nobody sent.
const int = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^\s*-?\d+\s*$/, 'expected an integer')
    .transform(Number)
    .pipe(z.number().int()),
]);
const decimal = z.union([
  z.number(),
  z
    .string()
    .regex(/^\s*-?\d+(\.\d+)?\s*$/, 'expected a number')
    .transform(Number),
]);
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
/** Identifiers are strings; a number is harmless to read as one. */
const ident = z.union([z.string(), z.number().transform(String)]);
const text = z.string().nullish();

/** Pacific `yyyy-MM-dd HH:mm:ss` → Date; absent, null or empty → null. */
const dateTime = z
  .string()
  .nullish()
  .transform((s, ctx) => {
    if (s === null || s === undefined || s.trim() === '') return null;
    const d = parsePacific(s);
    if (d === null) {
      ctx.addIssue({ code: 'custom', message: 'expected a Pacific date-time yyyy-MM-dd HH:mm:ss' });
      return z.NEVER;
    }
    return d;
  });

const info = z.object({ code: z.string(), name: text, message: text });

const costEntry = z.object({
  fee_type: z.string(),
  percentage: decimal.nullish(),
  amount_in_cents: int,
  currency: text,
  tax_type: text,
  tax_in_cents: int.nullish(),
  number_of_gifts: int.nullish(),
  fee_per_gift_in_cents: int.nullish(),
});

const fees = z.object({
  cost_entries: z.array(costEntry).nullish(),
  subtotal_in_cents: int,
  tax_in_cents: int.nullish(),
  tax_type: text,
  total_in_cents: int,
});

const contact = z.object({
  email: z.string(),
  firstname: text,
  lastname: text,
  message: text,
  added_succesfully: flag.nullish(), // production spelling (sic)
  added_successfully: flag.nullish(),
});

const campaign = z.object({
  id: ident,
  uuid: ident,
  status: z.string(),
  delivery_type: z.string(),
  company_name: text,
  message: text,
  subject: text,
  suppress_default_greeting: flag.nullish(),
  gift_template: text,
  contacts: z.array(contact).nullish(),
  contacts_success_count: int.nullish(),
  contact_success_count: int.nullish(),
  contacts_failure_count: int.nullish(),
  contact_failure_count: int.nullish(),
  price_in_cents: int,
  brand_codes: z.array(z.string()).nullish(),
  /** Embedded rewards name their single brand this way. */
  brand_code: text,
  region: ident.nullish(),
  fees: fees.nullish(),
  expiry: text,
  link_count: int.nullish(),
});

const gift = z.object({
  uuid: ident,
  campaign_uuid: ident,
  campaign_id: ident.nullish(),
  status: z.string(),
  delivery_status: z.string(),
  price_in_cents: int,
  brand_code: text,
  recipient_email: text,
  recipient_name: text,
  redelivery_count: int.nullish(),
  created_date: dateTime,
  delivery_date: dateTime,
  redeemed_date: dateTime,
  expiry: text,
  management_dashboard_link: text,
  shortlink: text,
});

const pageFields = {
  number_of_results: int.nullish(),
  limit: int.nullish(),
  offset: int.nullish(),
  total_count: int.nullish(),
};

const brandSummary = z.object({
  brand_code: z.string(),
  name: z.string(),
  image_url: text,
  disclaimer: text,
});

const brand = brandSummary.extend({
  description: text,
  regions: z.array(int).nullish(),
  fund_currencyisocode: text,
  variable_price: flag.nullish(),
  min_price_in_cents: int.nullish(),
  max_price_in_cents: int.nullish(),
  allowed_prices_in_cents: z.array(int).nullish(),
  embeddable: flag.nullish(),
  expiry_period: text,
});

const balance = z.object({
  available_in_cents: int.nullish(),
  pending_in_cents: int.nullish(),
  reserved_in_cents: int.nullish(),
});

export const wire = {
  ping: z.object({ username: z.string(), displayname: text, info: info.nullish() }),
  campaignCreated: z.object({ info, campaign }),
  campaignRead: z.object({ info: info.nullish(), campaign }),
  directLinksCreated: z.object({ info, campaign, direct_links: z.array(z.string()) }),
  embeddedCreated: z.object({
    info: info.nullish(),
    campaign: z.object({ id: ident, uuid: ident, brand_code: z.string(), price_in_cents: int, fees: fees.nullish() }),
    gift_link: z.string(),
  }),
  links: z.object({
    info: info.nullish(),
    shortlinks: z.array(z.object({ number: int, shortlink: z.string() })).nullish(),
    directlinks: z.array(z.object({ number: int, link: z.string() })).nullish(),
    ...pageFields,
  }),
  giftList: z.object({ gifts: z.array(gift), ...pageFields }),
  giftRead: z.object({ gift }),
  brandList: z.object({ brands: z.array(brandSummary), ...pageFields }),
  brandRead: z.object({ brand }),
  regions: z.object({ regions: z.array(z.object({ id: int, name: z.string(), image_url: text })) }),
  funds: z.object({ fundsbycurrency: z.record(z.string(), balance) }),
  /** A refused create's body: a 422 from POST /campaign may carry the partial order's contact results. */
  rejectedCampaign: z.object({ campaign: z.object({ contacts: z.array(contact) }) }),
};

export type WireInfo = z.infer<typeof info>;
export type WireCampaign = z.infer<typeof campaign>;
export type WireFees = z.infer<typeof fees>;
type WireCostEntry = z.infer<typeof costEntry>;
export type WireGift = z.infer<typeof gift>;
export type WireContact = z.infer<typeof contact>;
export type WireBrandSummary = z.infer<typeof brandSummary>;
export type WireBrand = z.infer<typeof brand>;
export type WirePage = { [K in keyof typeof pageFields]?: number | null | undefined };

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

// The hot lists (a nested read reads ten gift pages of twenty) have a hand-written fast path for the shape
// the reward API actually sends: ids and texts as strings, integers as numbers, dates as Pacific wall time.
// It accepts only what the zod schema accepts and returns what it returns (unknown fields dropped, dates as
// instants); anything else (an id sent as a number, an integer as a string, a bad date) answers undefined
// and the zod schema reads it instead, with its tolerance and its messages. One page: about a quarter of
// the zod time, and far less garbage.

const isText = (v: unknown) => v === null || v === undefined || typeof v === 'string';
const isInt = (v: unknown) => Number.isSafeInteger(v);
const isOptionalInt = (v: unknown) => v === null || v === undefined || Number.isSafeInteger(v);

/** Date as the dateTime schema reads it; undefined when not the fast shape (or not a date at all). */
function fastDate(v: unknown): Date | null | undefined {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') return undefined;
  if (v.trim() === '') return null;
  return parsePacific(v) ?? undefined;
}

function fastGift(json: unknown): WireGift | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const g = json as Record<string, unknown>;
  if (
    typeof g.uuid !== 'string' ||
    typeof g.campaign_uuid !== 'string' ||
    !isText(g.campaign_id) ||
    typeof g.status !== 'string' ||
    typeof g.delivery_status !== 'string' ||
    !isInt(g.price_in_cents) ||
    !isText(g.brand_code) ||
    !isText(g.recipient_email) ||
    !isText(g.recipient_name) ||
    !isOptionalInt(g.redelivery_count) ||
    !isText(g.expiry) ||
    !isText(g.management_dashboard_link) ||
    !isText(g.shortlink)
  ) {
    return undefined;
  }
  const created = fastDate(g.created_date);
  const delivered = fastDate(g.delivery_date);
  const redeemed = fastDate(g.redeemed_date);
  if (created === undefined || delivered === undefined || redeemed === undefined) return undefined;
  return {
    uuid: g.uuid,
    campaign_uuid: g.campaign_uuid,
    campaign_id: g.campaign_id as string | null | undefined,
    status: g.status,
    delivery_status: g.delivery_status,
    price_in_cents: g.price_in_cents as number,
    brand_code: g.brand_code as string | null | undefined,
    recipient_email: g.recipient_email as string | null | undefined,
    recipient_name: g.recipient_name as string | null | undefined,
    redelivery_count: g.redelivery_count as number | null | undefined,
    created_date: created,
    delivery_date: delivered,
    redeemed_date: redeemed,
    expiry: g.expiry as string | null | undefined,
    management_dashboard_link: g.management_dashboard_link as string | null | undefined,
    shortlink: g.shortlink as string | null | undefined,
  };
}

function fastGiftList(json: unknown): z.output<typeof wire.giftList> | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const w = json as Record<string, unknown>;
  if (
    !Array.isArray(w.gifts) ||
    !isOptionalInt(w.number_of_results) ||
    !isOptionalInt(w.limit) ||
    !isOptionalInt(w.offset) ||
    !isOptionalInt(w.total_count)
  ) {
    return undefined;
  }
  const gifts: WireGift[] = [];
  for (const item of w.gifts) {
    const gift = fastGift(item);
    if (!gift) return undefined;
    gifts.push(gift);
  }
  return {
    gifts,
    number_of_results: w.number_of_results as number | null | undefined,
    limit: w.limit as number | null | undefined,
    offset: w.offset as number | null | undefined,
    total_count: w.total_count as number | null | undefined,
  };
}

function fastGiftRead(json: unknown): z.output<typeof wire.giftRead> | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const gift = fastGift((json as { gift?: unknown }).gift);
  return gift && { gift };
}

// Campaign reads have the same kind of fast path: a nested read reads ten campaigns, each with its contacts
// and fees, and through zod that was ~4% of the gateway's CPU.

const isFlag = (v: unknown) => v === null || v === undefined || typeof v === 'boolean';
const isOptionalNumber = (v: unknown) => v === null || v === undefined || typeof v === 'number';
const asObject = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** Each item read by `one`; null or undefined as is; undefined (not the fast shape) when any item is not. */
function fastList<T>(v: unknown, one: (item: unknown) => T | undefined): T[] | null | undefined {
  if (v === null) return null;
  if (v === undefined || !Array.isArray(v)) return undefined;
  const items: T[] = [];
  for (const item of v) {
    const read = one(item);
    if (read === undefined) return undefined;
    items.push(read);
  }
  return items;
}

/** A nullish field read by `one`: null and undefined stay as they are (`fastList` for lists). */
const fastNullish = <T>(v: unknown, one: (value: unknown) => T | undefined): T | null | undefined | false =>
  v === null || v === undefined ? v : (one(v) ?? false);

function fastInfo(json: unknown): WireInfo | undefined {
  const i = asObject(json);
  if (!i || typeof i.code !== 'string' || !isText(i.name) || !isText(i.message)) return undefined;
  return { code: i.code, name: i.name as string | null | undefined, message: i.message as string | null | undefined };
}

function fastContact(json: unknown): WireContact | undefined {
  const c = asObject(json);
  if (
    !c ||
    typeof c.email !== 'string' ||
    !isText(c.firstname) ||
    !isText(c.lastname) ||
    !isText(c.message) ||
    !isFlag(c.added_succesfully) ||
    !isFlag(c.added_successfully)
  ) {
    return undefined;
  }
  return {
    email: c.email,
    firstname: c.firstname as string | null | undefined,
    lastname: c.lastname as string | null | undefined,
    message: c.message as string | null | undefined,
    added_succesfully: c.added_succesfully as boolean | null | undefined,
    added_successfully: c.added_successfully as boolean | null | undefined,
  };
}

function fastCostEntry(json: unknown): WireCostEntry | undefined {
  const e = asObject(json);
  if (
    !e ||
    typeof e.fee_type !== 'string' ||
    !isOptionalNumber(e.percentage) ||
    !isInt(e.amount_in_cents) ||
    !isText(e.currency) ||
    !isText(e.tax_type) ||
    !isOptionalInt(e.tax_in_cents) ||
    !isOptionalInt(e.number_of_gifts) ||
    !isOptionalInt(e.fee_per_gift_in_cents)
  ) {
    return undefined;
  }
  return {
    fee_type: e.fee_type,
    percentage: e.percentage as number | null | undefined,
    amount_in_cents: e.amount_in_cents as number,
    currency: e.currency as string | null | undefined,
    tax_type: e.tax_type as string | null | undefined,
    tax_in_cents: e.tax_in_cents as number | null | undefined,
    number_of_gifts: e.number_of_gifts as number | null | undefined,
    fee_per_gift_in_cents: e.fee_per_gift_in_cents as number | null | undefined,
  };
}

function fastFees(json: unknown): WireFees | undefined {
  const f = asObject(json);
  if (!f || !isInt(f.subtotal_in_cents) || !isOptionalInt(f.tax_in_cents) || !isText(f.tax_type) || !isInt(f.total_in_cents)) {
    return undefined;
  }
  const entries = f.cost_entries === undefined ? undefined : fastList(f.cost_entries, fastCostEntry);
  if (entries === undefined && f.cost_entries !== undefined) return undefined;
  return {
    cost_entries: entries,
    subtotal_in_cents: f.subtotal_in_cents as number,
    tax_in_cents: f.tax_in_cents as number | null | undefined,
    tax_type: f.tax_type as string | null | undefined,
    total_in_cents: f.total_in_cents as number,
  };
}

const fastString = (v: unknown) => (typeof v === 'string' ? v : undefined);

function fastCampaign(json: unknown): WireCampaign | undefined {
  const c = asObject(json);
  if (
    !c ||
    typeof c.id !== 'string' ||
    typeof c.uuid !== 'string' ||
    typeof c.status !== 'string' ||
    typeof c.delivery_type !== 'string' ||
    !isText(c.company_name) ||
    !isText(c.message) ||
    !isText(c.subject) ||
    !isFlag(c.suppress_default_greeting) ||
    !isText(c.gift_template) ||
    !isOptionalInt(c.contacts_success_count) ||
    !isOptionalInt(c.contact_success_count) ||
    !isOptionalInt(c.contacts_failure_count) ||
    !isOptionalInt(c.contact_failure_count) ||
    !isInt(c.price_in_cents) ||
    !isText(c.brand_code) ||
    !isText(c.region) ||
    !isText(c.expiry) ||
    !isOptionalInt(c.link_count)
  ) {
    return undefined;
  }
  const contacts = c.contacts === undefined ? undefined : fastList(c.contacts, fastContact);
  const brandCodes = c.brand_codes === undefined ? undefined : fastList(c.brand_codes, fastString);
  const fees = fastNullish(c.fees, fastFees);
  if ((contacts === undefined && c.contacts !== undefined) || (brandCodes === undefined && c.brand_codes !== undefined) || fees === false) {
    return undefined;
  }
  return {
    id: c.id,
    uuid: c.uuid,
    status: c.status,
    delivery_type: c.delivery_type,
    company_name: c.company_name as string | null | undefined,
    message: c.message as string | null | undefined,
    subject: c.subject as string | null | undefined,
    suppress_default_greeting: c.suppress_default_greeting as boolean | null | undefined,
    gift_template: c.gift_template as string | null | undefined,
    contacts,
    contacts_success_count: c.contacts_success_count as number | null | undefined,
    contact_success_count: c.contact_success_count as number | null | undefined,
    contacts_failure_count: c.contacts_failure_count as number | null | undefined,
    contact_failure_count: c.contact_failure_count as number | null | undefined,
    price_in_cents: c.price_in_cents as number,
    brand_codes: brandCodes,
    brand_code: c.brand_code as string | null | undefined,
    region: c.region as string | null | undefined,
    fees,
    expiry: c.expiry as string | null | undefined,
    link_count: c.link_count as number | null | undefined,
  };
}

function fastCampaignRead(json: unknown): z.output<typeof wire.campaignRead> | undefined {
  const w = asObject(json);
  if (!w) return undefined;
  const info = fastNullish(w.info, fastInfo);
  const campaign = fastCampaign(w.campaign);
  return info === false || !campaign ? undefined : { info, campaign };
}

const fastPaths = new Map<z.ZodType, (json: unknown) => unknown>([
  [wire.giftList, fastGiftList],
  [wire.giftRead, fastGiftRead],
  [wire.campaignRead, fastCampaignRead],
]);

/**
 * A body reader: validate with `schema`, then shape with `to`. A failure names at most three field paths and
 * zod's description of each, never the values (a body may hold recipients' details).
 */
export function reader<S extends z.ZodType, T>(schema: S, to: (w: z.output<S>) => T): (json: unknown) => Parsed<T> {
  const fast = fastPaths.get(schema) as ((json: unknown) => z.output<S> | undefined) | undefined;
  return (json) => {
    const quick = fast?.(json);
    if (quick !== undefined) return { ok: true, value: to(quick) };
    const result = schema.safeParse(json);
    if (result.success) return { ok: true, value: to(result.data) };
    const problem = result.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
      .join('; ');
    return { ok: false, problem };
  };
}
