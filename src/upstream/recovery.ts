// The one owner of "what happened to a create we could not see": finding an order by its caller id after an
// ambiguous failure, and deciding whether the order found is *this* request's.
//
// The caller id is the idempotency key, but an id can already name an earlier, different order. Reporting
// that order as this create's success would tell the caller its rewards went out when they did not (and hand
// it someone else's links). So a found order counts as this request's only if every field the upstream echoes
// agrees with what was asked; anything else is the same IdempotencyConflict a healthy upstream answers, with
// the fields that differ named. A healthy upstream's own ERROR_ID_CONFLICT goes through the same comparison,
// so both paths name the same fields.
//
// The lookups are GETs with the usual retries and a time budget of their own, starting when the write's
// retries have ended (so a call can take up to about two budgets). A lookup that fails or finds nothing
// leaves the original error standing; call.ts has marked it `outcomeUnknown`, and retrying with the same id
// is safe.

import type { Span } from '@opentelemetry/api';
import { pathSegment } from './path-segment.js';
import type { Redact } from '../redaction/redaction.js';
import { inSpan } from '../telemetry/spans.js';
import type { Caller, FailureFacts } from './call.js';
import type { UpstreamLogger } from './config.js';
import { IdConflictError, type OrderField, type UpstreamError } from './errors.js';
import { amend } from './failures.js';
import { toCampaign, toFunding, toGift, toInfo, toLinkPage } from './normalise.js';
import { giftQuery, queryString } from './query.js';
import type {
  Campaign,
  CreateCampaignRequest,
  CreateDirectLinksRequest,
  CreatedCampaign,
  CreateEmbeddedRequest,
  EmbeddedReward,
  Info,
} from './types.js';
import { LINKS_PAGE_MAX } from './types.js';
import { reader, wire } from './wire.js';

const seg = (value: string) => pathSegment(value);

export function isIdConflict(error: UpstreamError): boolean {
  return error.kind === 'http' && error.status === 422 && error.code === 'ERROR_ID_CONFLICT';
}

/** What a create asked for, in the terms GET /campaign/{id} echoes. Absent keys are not compared. */
interface AskedOrder {
  deliveryType: 'EMAIL' | 'SHORTLINK' | 'DIRECT_LINK' | 'EMBEDDED';
  priceInCents: number;
  /** Brand list or region of a campaign or link order. */
  reward?: { brandCodes?: string[]; region?: string };
  /** The one brand of an embedded reward. */
  brand?: string;
  /** Recipient emails (email delivery). */
  contacts?: string[];
  linkCount?: number | null;
  expiry?: string | null;
  subject?: string;
  message?: string;
  giftTemplate?: string;
}

const lower = (s: string) => s.trim().toLowerCase();

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a.map(lower));
  const y = new Set(b.map(lower));
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/** Production names email delivery after its service (`<SERVICE>_EMAIL`). */
function deliveryOf(found: Campaign): string {
  return found.deliveryType.endsWith('_EMAIL') ? 'EMAIL' : found.deliveryType;
}

function sameReward(found: Campaign, asked: NonNullable<AskedOrder['reward']>): boolean {
  // A full-catalog order also lists the region's brands, so the region alone decides for it.
  if (asked.region !== undefined) return found.region !== null && lower(found.region) === lower(asked.region);
  if (found.region !== null) return false;
  return sameSet(found.brandCodes, asked.brandCodes ?? []);
}

/** Every echoed field of the found order that differs from the request, in a stable order. */
export function conflictingFields(found: Campaign, asked: AskedOrder): OrderField[] {
  const differs: OrderField[] = [];
  if (deliveryOf(found) !== asked.deliveryType) differs.push('deliveryType');
  if (found.priceInCents !== asked.priceInCents) differs.push('priceInCents');
  if (asked.reward && !sameReward(found, asked.reward)) differs.push('reward');
  if (asked.brand !== undefined && !sameSet(found.brandCodes, [asked.brand])) differs.push('brand');
  // Recipients and link count are compared when echoed: a record without them cannot speak for them, and
  // the delivery type already tells an email order from a link order.
  if (
    asked.contacts &&
    found.contacts !== null &&
    !sameSet(
      found.contacts.map((c) => c.email),
      asked.contacts,
    )
  ) {
    differs.push('contacts');
  }
  if (asked.linkCount !== undefined && found.linkCount !== null && found.linkCount !== asked.linkCount) differs.push('linkCount');
  // An absent expiry means "never expires", so it is compared either way.
  if (asked.expiry !== undefined && (found.expiry ?? null) !== asked.expiry) differs.push('expiry');
  // Only where both sides have one: a template fills subject and message in, link orders echo a fixed text.
  if (asked.subject !== undefined && found.subject !== null && found.subject !== asked.subject) differs.push('subject');
  if (asked.message !== undefined && found.message !== null && found.message !== asked.message) differs.push('message');
  if (asked.giftTemplate !== undefined && found.giftTemplate !== null && found.giftTemplate !== asked.giftTemplate) {
    differs.push('giftTemplate');
  }
  return differs;
}

export function askedCampaign(req: CreateCampaignRequest): AskedOrder {
  return {
    deliveryType: req.deliveryType === 'SHORTLINK' ? 'SHORTLINK' : 'EMAIL',
    priceInCents: req.priceInCents,
    reward: { brandCodes: req.brandCodes, region: req.region },
    contacts: (req.contacts ?? []).map((c) => c.email),
    linkCount: req.linkCount ?? null,
    expiry: req.expiry ?? null,
    subject: req.subject,
    message: req.message,
    giftTemplate: req.giftTemplate,
  };
}

export function askedDirectLinks(req: CreateDirectLinksRequest): AskedOrder {
  return {
    deliveryType: 'DIRECT_LINK',
    priceInCents: req.priceInCents,
    reward: { brandCodes: req.brandCodes, region: req.region },
    linkCount: req.linkCount,
    expiry: req.expiry ?? null,
  };
}

export function askedEmbedded(req: CreateEmbeddedRequest): AskedOrder {
  return { deliveryType: 'EMBEDDED', priceInCents: req.priceInCents, brand: req.brandCode };
}

type Rescue<T> = (error: UpstreamError, facts: FailureFacts) => Promise<{ value: T; recovered: boolean } | null>;

export interface Recovery {
  campaign(req: CreateCampaignRequest): Rescue<CreatedCampaign>;
  directLinks(req: CreateDirectLinksRequest): Rescue<CreatedCampaign>;
  embedded(req: CreateEmbeddedRequest): Rescue<EmbeddedReward>;
}

export function createRecovery(caller: Caller, logger: UpstreamLogger | undefined, text: Redact): Recovery {
  /**
   * GET /campaign/{id}: the campaign and the info of that read, or null for any failure. The route also takes
   * a uuid, so an id that is another order's uuid finds that order: only an order carrying this very id counts.
   */
  async function findCampaign(id: string, facts: FailureFacts): Promise<{ info: Info; campaign: Campaign } | null> {
    const result = await caller.request(
      {
        method: 'GET',
        route: 'GET /campaign/:id',
        path: `/campaign/${seg(id)}`,
        idempotent: true,
        parse: reader(wire.campaignRead, (w) => ({ info: toInfo(w.info, text), campaign: toCampaign(w.campaign, text) })),
      },
      facts.scope,
      facts.signal,
    );
    return result.ok && result.value.campaign.id === id ? result.value : null;
  }

  /** Every URL of a link order, paging through GET /links/{id}; null while generating or on any failure. */
  async function findAllLinks(id: string, facts: FailureFacts): Promise<string[] | null> {
    const urls: string[] = [];
    for (let offset = 0; ;) {
      const result = await caller.request(
        {
          method: 'GET',
          route: 'GET /links/:id',
          path: `/links/${seg(id)}${queryString({ limit: LINKS_PAGE_MAX, offset })}`,
          idempotent: true,
          parse: reader(wire.links, (w) => toLinkPage(w, { limit: LINKS_PAGE_MAX, offset }, text)),
        },
        facts.scope,
        facts.signal,
      );
      if (!result.ok || !result.value.ready) return null;
      const { links, totalCount } = result.value;
      urls.push(...links.map((l) => l.url));
      offset += links.length;
      if (links.length === 0 || offset >= totalCount) return urls;
    }
  }

  /** An embedded order holds exactly one reward; its claim URL is that gift's `shortlink`. */
  async function findGiftLink(id: string, facts: FailureFacts): Promise<string | null> {
    const gifts = await caller.request(
      {
        method: 'GET',
        route: 'GET /gifts',
        path: `/gifts${giftQuery({ campaignId: id, limit: 1 })}`,
        idempotent: true,
        parse: reader(wire.giftList, (w) => w.gifts.map((g) => toGift(g, text))),
      },
      facts.scope,
      facts.signal,
    );
    return gifts.ok ? (gifts.value[0]?.shortlink ?? null) : null;
  }

  /**
   * The shared rescue of a create: an id conflict is named field by field; an unknown outcome is resolved by
   * looking the order up and accepting it only if it is this request's; `build` turns the match into the
   * create's answer (and may still give up, throwing).
   */
  function rescueBy<T>(
    route: string,
    id: string,
    asked: AskedOrder,
    build: (found: { info: Info; campaign: Campaign }, error: UpstreamError, facts: FailureFacts) => Promise<T>,
  ): Rescue<T> {
    // One span per rescue, around its lookups (whose attempts are client spans of their own).
    return (error, facts) =>
      inSpan(
        `upstream recovery ${route}`,
        () => ({ 'reward.upstream.route': route, 'error.type': error.kind }),
        (span) => rescue(error, facts, span),
      );
    async function rescue(error: UpstreamError, facts: FailureFacts, span: Span | undefined) {
      if (isIdConflict(error)) {
        const found = await findCampaign(id, facts);
        // Not found: the id names a top-up, or the read failed; either way nothing echoed can be compared.
        throw new IdConflictError(route, found ? conflictingFields(found.campaign, asked) : [], error.attempts);
      }
      if (!facts.ambiguous) return null;
      const found = await findCampaign(id, facts);
      const differs = found ? conflictingFields(found.campaign, asked) : [];
      span?.setAttributes({ 'reward.recovery.found': found !== null, 'reward.recovery.differs': differs.length > 0 });
      (facts.scope.log ?? logger)?.warn(
        { route, errorKind: error.kind, status: error.status, attempts: error.attempts, found: found !== null, conflictingFields: differs },
        !found
          ? 'upstream create outcome unknown; the order was not found by its id (or the lookup failed)'
          : differs.length > 0
            ? 'upstream create outcome unknown; its id names a different order'
            : 'upstream create recovered by looking the order up',
      );
      if (!found) return null;
      if (differs.length > 0) throw new IdConflictError(route, differs, error.attempts);
      return { value: await build(found, error, facts), recovered: true };
    }
  }

  return {
    campaign: (req) =>
      rescueBy('POST /campaign', req.id, askedCampaign(req), async ({ info, campaign }) => ({
        info,
        funding: toFunding(null, campaign.status),
        campaign,
        directLinks: null,
        recovered: true,
      })),

    // The order alone is worth reporting: if its links cannot be read yet, directLinks stays null and
    // getLinks(id) fetches them later.
    directLinks: (req) =>
      rescueBy('POST /direct_links', req.id, askedDirectLinks(req), async ({ info, campaign }, _error, facts) => ({
        info,
        funding: toFunding(null, campaign.status),
        campaign,
        directLinks: await findAllLinks(req.id, facts),
        recovered: true,
      })),

    // Without the link there is nothing useful to return: the error stands (still an unknown outcome to the
    // client), and a retry with the same id, which answers the original response, link included, is safe.
    embedded: (req) =>
      rescueBy('POST /embedded', req.id, askedEmbedded(req), async ({ campaign }, error, facts) => {
        const link = await findGiftLink(req.id, facts);
        if (!link) throw amend(error, { retryable: true }, `${error.message}; the order exists but its gift link could not be read`);
        return {
          campaign: {
            id: campaign.id,
            uuid: campaign.uuid,
            brandCode: campaign.brandCodes[0] ?? req.brandCode,
            priceInCents: campaign.priceInCents,
            fees: campaign.fees,
          },
          giftLink: link,
          recovered: true,
        };
      }),
  };
}
