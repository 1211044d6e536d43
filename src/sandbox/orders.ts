// Creating orders: POST /campaign (email or short links), POST /direct_links and POST /embedded, their shared
// checks (brands and price, region, expiry, idempotent id), funding, and the campaign record GET /campaign
// shows. Handlers stay synchronous from the idempotency check to the insert, so two identical POSTs arriving
// together can never both create an order.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ACCOUNT } from './account.js';
import { BRANDS, brandAllowsPrice, findBrand, REGIONS, regionByName, type Currency } from './catalog.js';
import type { Answer, Handler, SandboxContext } from './context.js';
import { invalidBrand, invalidParameter, notFound, SandboxError } from './errors.js';
import { computeFees } from './fees.js';
import { admit, fundImmediately, type Admission } from './funds.js';
import { replayOrConflict, remember } from './idempotency.js';
import { info, type Info } from './info.js';
import { endOfPacificDay, formatPacific, isCalendarDate, pacificDate, shiftDate } from '../shared/pacific-time.js';
import { nextSeq, type ContactResult, type Order, type Recipient, type SandboxState } from './state.js';
import { callerIdSchema, parseBody, priceSchema } from './validate.js';

/** Bounds the specification leaves open ("not shown"); see docs/upstream-contract.md. */
const MAX_CONTACTS = 1_000;
const MAX_LINK_COUNT = 10_000;
const LINK_MESSAGE = 'Here is your reward. Choose how you would like to receive it.';
const EMBEDDED_MESSAGE = 'Embedded reward.';
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UNDELIVERABLE_DOMAIN = /\.invalid$/i;

const optionalText = (max: number) => z.string().max(max).nullish();
const brandChoice = {
  brand_codes: z.array(z.string().min(1).max(100)).min(1).max(100).nullish(),
  region: z.string().min(1).max(100).nullish(),
};
const linkCountSchema = z.number().int().min(1).max(MAX_LINK_COUNT);

const campaignSchema = z.object({
  id: callerIdSchema,
  price_in_cents: priceSchema,
  delivery_type: z.enum(['SERVICE_EMAIL', 'SHORTLINK']).nullish(),
  contacts: z
    .array(z.object({ email: z.string().max(320), firstname: optionalText(200), lastname: optionalText(200) }))
    .max(MAX_CONTACTS)
    .nullish(),
  ...brandChoice,
  message: optionalText(10_000),
  subject: optionalText(500),
  gift_template: z.string().min(1).max(200).nullish(),
  link_count: linkCountSchema.nullish(),
  expiry: z.string().nullish(),
});

const directLinksSchema = z.object({
  id: callerIdSchema,
  price_in_cents: priceSchema,
  ...brandChoice,
  link_count: linkCountSchema,
  expiry: z.string().nullish(),
});

const embeddedSchema = z.object({
  id: callerIdSchema,
  brand_code: z.string().min(1).max(100),
  price_in_cents: priceSchema,
});

interface BrandResolution {
  codes: string[];
  currency: Currency;
  region: string | null;
}

/** One brand, a list of brands (sharing one currency), or a region's full catalog at this price. */
function resolveBrands(codes: string[] | null | undefined, regionName: string | null | undefined, price: number): BrandResolution {
  if (codes && regionName) throw invalidParameter('brand_codes, region: give one of them, not both');
  if (regionName) {
    const region = regionByName(regionName);
    if (!region) throw invalidParameter(`region: must be one of ${REGIONS.map((r) => r.name).join(', ')}`);
    const offered = BRANDS.filter((b) => b.regionIds.includes(region.id) && brandAllowsPrice(b, price)).map((b) => b.code);
    if (offered.length === 0) throw invalidBrand(`No brand of region ${region.name} offers ${price} cents.`);
    return { codes: offered, currency: region.currency, region: region.name };
  }
  if (!codes) throw invalidParameter('brand_codes, region: give brand_codes or a region');
  const unique = [...new Set(codes)];
  const brands = unique.map((code) => {
    const brand = findBrand(code);
    if (!brand) throw invalidBrand(`Unknown brand code ${code}.`);
    if (!brandAllowsPrice(brand, price)) throw invalidBrand(`Brand ${code} does not offer ${price} cents.`);
    return brand;
  });
  const currency = brands[0]!.currency;
  if (brands.some((b) => b.currency !== currency)) throw invalidBrand('All brands of an order must share one currency.');
  return { codes: unique, currency, region: null };
}

/** YYYY-MM-DD, after today and at most one year from today (Pacific dates on the sandbox clock). */
function checkExpiry(state: SandboxState, expiry: string | null | undefined): { expiry: string; expiresAt: Date } | null {
  if (expiry === undefined || expiry === null) return null;
  if (!isCalendarDate(expiry)) throw invalidParameter('expiry: expected a date YYYY-MM-DD');
  const today = pacificDate(state.clock.now());
  const latest = shiftDate(today, 0, 1);
  if (expiry <= today || expiry > latest) throw invalidParameter(`expiry: must be after ${today} and no later than ${latest}`);
  return { expiry, expiresAt: endOfPacificDay(expiry) };
}

/** What a create request decides about an order; the rest (uuid, status, fees…) newOrder works out. */
type OrderSpec = Pick<
  Order,
  'id' | 'deliveryType' | 'priceInCents' | 'message' | 'subject' | 'giftTemplate' | 'contacts' | 'recipients' | 'giftCount' | 'linkCount'
> & {
  brands: BrandResolution;
  expiry: { expiry: string; expiresAt: Date } | null;
};

function newOrder(state: SandboxState, spec: OrderSpec): Order {
  return {
    seq: nextSeq(state),
    id: spec.id,
    uuid: randomUUID(),
    deliveryType: spec.deliveryType,
    status: 'AWAITING_FUNDS',
    funded: false,
    processed: false,
    currency: spec.brands.currency,
    priceInCents: spec.priceInCents,
    brandCodes: spec.brands.codes,
    region: spec.brands.region,
    companyName: ACCOUNT.companyName,
    message: spec.message,
    subject: spec.subject,
    giftTemplate: spec.giftTemplate,
    contacts: spec.contacts,
    recipients: spec.recipients,
    giftCount: spec.giftCount,
    linkCount: spec.linkCount,
    expiry: spec.expiry?.expiry ?? null,
    expiresAt: spec.expiry?.expiresAt ?? null,
    fees: computeFees(spec.priceInCents, spec.giftCount, spec.brands.currency, spec.deliveryType === 'EMBEDDED'),
    createdAt: state.clock.now(),
    gifts: [],
  };
}

function register(ctx: SandboxContext, order: Order): void {
  ctx.state.ordersByUuid.set(order.uuid, order);
  ctx.state.ordersById.set(order.id, order);
  ctx.stats.countCreate(order.id);
}

const ADMISSION_INFO: Record<Admission, Info> = {
  FUNDED: info('INFO_CAMPAIGN_CREATED', 'Campaign created', 'The campaign was created.'),
  FUNDS_REQUIRED: info(
    'INFO_CAMPAIGN_CREATED_FUNDS_REQUIRED',
    'Campaign created, funds required',
    'The campaign was created and will be sent automatically once your balance covers it.',
  ),
  FUNDS_PENDING: info(
    'INFO_CAMPAIGN_CREATED_FUNDS_PENDING',
    'Campaign created, funds pending',
    'The campaign was created and will be sent automatically once your pending funds clear.',
  ),
};

function campaignView(order: Order): Record<string, unknown> {
  const email = order.deliveryType === 'SERVICE_EMAIL';
  const accepted = order.contacts?.filter((c) => c.added_succesfully).length ?? 0;
  return {
    id: order.id,
    uuid: order.uuid,
    status: order.status,
    delivery_type: order.deliveryType,
    company_name: order.companyName,
    message: order.message,
    subject: order.subject,
    suppress_default_greeting: false,
    gift_template: order.giftTemplate,
    contacts: order.contacts,
    contacts_success_count: email ? accepted : 0,
    contacts_failure_count: email ? (order.contacts?.length ?? 0) - accepted : 0,
    price_in_cents: order.priceInCents,
    brand_codes: order.brandCodes,
    ...(order.deliveryType === 'EMBEDDED' ? { brand_code: order.brandCodes[0] } : {}),
    region: order.region,
    fees: order.fees,
    expiry: order.expiry,
    link_count: order.linkCount,
    created_date: formatPacific(order.createdAt),
  };
}

function contactResults(state: SandboxState, contacts: { email: string; firstname?: string | null; lastname?: string | null }[]) {
  const seen = new Set(state.knownContacts);
  const results: ContactResult[] = [];
  const recipients: Recipient[] = [];
  for (const c of contacts) {
    const email = c.email.trim();
    const wellFormed = EMAIL_ADDRESS.test(email);
    // The reserved .invalid domain (RFC 2606) can never receive mail: the sandbox refuses it the way the
    // service refuses an address it cannot deliver to, so a well-formed address can be refused in tests.
    const deliverable = !UNDELIVERABLE_DOMAIN.test(email);
    const valid = wellFormed && deliverable;
    const known = seen.has(email.toLowerCase());
    results.push({
      email,
      firstname: c.firstname ?? null,
      lastname: c.lastname ?? null,
      message: valid ? (known ? 'Existing contact' : 'New contact') : wellFormed ? 'Email address cannot receive mail' : 'Invalid email address',
      added_succesfully: valid,
    });
    if (valid) {
      seen.add(email.toLowerCase());
      const name = [c.firstname, c.lastname].filter((p) => p && p.trim()).join(' ');
      recipients.push({ email, name: name || null });
    }
  }
  return { results, recipients, seen };
}

export const createCampaign: Handler = ({ ctx, body }) => {
  const req = parseBody(campaignSchema, body);
  const replay = replayOrConflict(ctx.state, 'POST /campaign', req.id, body);
  if (replay) return replay;
  const brands = resolveBrands(req.brand_codes, req.region, req.price_in_cents);
  const expiry = checkExpiry(ctx.state, req.expiry);
  const base = { id: req.id, priceInCents: req.price_in_cents, brands, expiry };

  let spec: OrderSpec;
  let seen: Set<string> | null = null;
  if (req.delivery_type === 'SHORTLINK') {
    if (req.contacts) throw invalidParameter('contacts: short-link orders take link_count, not contacts');
    if (!req.link_count) throw invalidParameter('link_count: required for SHORTLINK delivery');
    spec = {
      ...base,
      deliveryType: 'SHORTLINK',
      message: req.message ?? LINK_MESSAGE,
      subject: null,
      giftTemplate: null,
      contacts: null,
      recipients: null,
      giftCount: req.link_count,
      linkCount: req.link_count,
    };
  } else {
    if (req.link_count) throw invalidParameter('link_count: only for SHORTLINK delivery or POST /direct_links');
    if (!req.contacts || req.contacts.length === 0) {
      throw new SandboxError(422, 'ERROR_CAMPAIGN_NO_CONTACTS', 'No contacts', 'An email campaign needs at least one contact.');
    }
    // A template carries its own message and subject; without one the request must.
    if (!req.gift_template && !req.message) throw invalidParameter('message: required unless gift_template is given');
    if (!req.gift_template && !req.subject) throw invalidParameter('subject: required unless gift_template is given');
    const contacts = contactResults(ctx.state, req.contacts);
    spec = {
      ...base,
      deliveryType: 'SERVICE_EMAIL',
      message: req.message ?? `<p>Message of template ${req.gift_template}</p>`,
      subject: req.subject ?? `A reward from ${ACCOUNT.companyName}`,
      giftTemplate: req.gift_template ?? null,
      contacts: contacts.results,
      recipients: contacts.recipients,
      giftCount: contacts.recipients.length,
      linkCount: null,
    };
    if (contacts.recipients.length === 0) {
      const partial = newOrder(ctx.state, spec);
      throw new SandboxError(422, 'ERROR_CAMPAIGN_NO_CONTACTS', 'No contacts', 'No contact of the campaign could be accepted.', {
        campaign: { ...campaignView(partial), uuid: null, status: null },
      });
    }
    seen = contacts.seen;
  }

  const order = newOrder(ctx.state, spec);
  const admission = admit(ctx.state, order);
  if (seen) ctx.state.knownContacts = seen;
  register(ctx, order);
  return remember(ctx.state, 'POST /campaign', req.id, body, {
    info: ADMISSION_INFO[admission],
    status: 200,
    campaign: campaignView(order),
  });
};

export const createDirectLinks: Handler = ({ ctx, body }) => {
  const req = parseBody(directLinksSchema, body);
  const replay = replayOrConflict(ctx.state, 'POST /direct_links', req.id, body);
  if (replay) return replay;
  const brands = resolveBrands(req.brand_codes, req.region, req.price_in_cents);
  const expiry = checkExpiry(ctx.state, req.expiry);
  const order = newOrder(ctx.state, {
    id: req.id,
    deliveryType: 'DIRECT_LINK',
    priceInCents: req.price_in_cents,
    brands,
    message: LINK_MESSAGE,
    subject: null,
    giftTemplate: null,
    contacts: null,
    recipients: null,
    giftCount: req.link_count,
    linkCount: req.link_count,
    expiry,
  });
  const admission = admit(ctx.state, order);
  register(ctx, order);
  return remember(ctx.state, 'POST /direct_links', req.id, body, {
    info: ADMISSION_INFO[admission],
    status: 200,
    // Links exist only once the order is funded; until then read them later from GET /links/{id}.
    direct_links: order.gifts.map((g) => g.link),
    campaign: campaignView(order),
  });
};

export const createEmbedded: Handler = ({ ctx, body }) => {
  const req = parseBody(embeddedSchema, body);
  const replay = replayOrConflict(ctx.state, 'POST /embedded', req.id, body);
  if (replay) return replay;
  const brands = resolveBrands([req.brand_code], null, req.price_in_cents);
  if (!findBrand(req.brand_code)!.embeddable) throw invalidBrand(`Brand ${req.brand_code} is not embeddable.`);
  const order = newOrder(ctx.state, {
    id: req.id,
    deliveryType: 'EMBEDDED',
    priceInCents: req.price_in_cents,
    brands,
    message: EMBEDDED_MESSAGE,
    subject: null,
    giftTemplate: null,
    contacts: null,
    recipients: null,
    giftCount: 1,
    linkCount: null,
    expiry: null,
  });
  fundImmediately(ctx.state, order);
  register(ctx, order);
  return remember(ctx.state, 'POST /embedded', req.id, body, {
    info: ADMISSION_INFO.FUNDED,
    status: 200,
    campaign: { uuid: order.uuid, id: order.id, brand_code: req.brand_code, price_in_cents: order.priceInCents, fees: order.fees },
    gift_link: order.gifts[0]!.link,
  });
};

/** Caller id first, then uuid: the specification lets either name an order. */
export function findOrder(state: SandboxState, ref: string): Order | undefined {
  return state.ordersById.get(ref) ?? state.ordersByUuid.get(ref);
}

export const getCampaign: Handler = ({ ctx, params }): Answer => {
  const order = findOrder(ctx.state, params.id!);
  if (!order) throw notFound('ERROR_CAMPAIGN_NOT_FOUND', `No campaign with id or uuid ${params.id}.`);
  return {
    body: { info: info('INFO_CAMPAIGN_RETRIEVED', 'Campaign retrieved', 'The campaign was retrieved.'), status: 200, campaign: campaignView(order) },
  };
};
