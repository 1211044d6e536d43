// The upstream client: one method per reward API endpoint, each returning a normalised type. Everything about
// how a request travels (bulkhead, timeouts, retries, error mapping, the one CallEvent) lives in call.ts; this
// file says per endpoint which route, which body, how to read the answer, and how to rescue a failure.
//
// Recovery after a lost answer: a create POST whose retries end in an unclear failure (reset, timeout, 5xx)
// may still have created the order, so the client looks it up by the caller id before reporting failure.
// The lookups are GETs with the usual retries and a time budget of their own, starting when the write's
// retries have ended (so a call can take up to about two budgets). Any failure of a lookup leaves the original
// error standing: "not found" and "could not look" both mean the caller should retry with the same id, which
// is safe. The found order is trusted to be this request's: the id is the idempotency key.

import { pathSegment } from '../path-segment.js';
import { createCaller, type FailureFacts } from './call.js';
import { resolveConfig, type UpstreamClientOptions } from './config.js';
import type { UpstreamError } from './errors.js';
import { amend } from './failures.js';
import { isSameOrder } from './order-match.js';
import {
  toAccount,
  toBrand,
  toBrandSummary,
  toCampaign,
  toFees,
  toFunding,
  toFunds,
  toGift,
  toInfo,
  toLinkPage,
  toPage,
} from './normalise.js';
import { brandQuery, giftQuery, queryString } from './query.js';
import type {
  Brand,
  Campaign,
  CreateCampaignRequest,
  CreatedCampaign,
  EmbeddedReward,
  Gift,
  Info,
  UpstreamClient,
} from './types.js';
import { reader, wire } from './wire.js';

export type { UpstreamClientOptions } from './config.js';

/** The upstream's own page size limit for links. */
const LINKS_PAGE = 50;

const seg = (value: string) => pathSegment(value);

/** Lookups answer "not found" as null, never as an exception. */
async function notFound(error: UpstreamError): Promise<{ value: null; recovered: false } | null> {
  return error.status === 404 ? { value: null, recovered: false } : null;
}

function campaignBody(req: CreateCampaignRequest): object {
  return {
    id: req.id,
    price_in_cents: req.priceInCents,
    contacts: req.contacts?.map((c) => ({ email: c.email, firstname: c.firstName, lastname: c.lastName })),
    brand_codes: req.brandCodes,
    region: req.region,
    message: req.message,
    subject: req.subject,
    gift_template: req.giftTemplate,
    // Production form on write: email delivery is the default and is sent by leaving the field out.
    delivery_type: req.deliveryType === 'SHORTLINK' ? 'SHORTLINK' : undefined,
    link_count: req.linkCount,
    expiry: req.expiry,
  };
}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const config = resolveConfig(opts);
  const caller = createCaller(config);
  const { logger } = config;

  const { call } = caller;

  /** GET /campaign/{id} for recovery: the campaign and the info of that read, or null for any failure. */
  async function findCampaign(id: string, signal?: AbortSignal): Promise<{ info: Info; campaign: Campaign } | null> {
    const result = await caller.request(
      {
        method: 'GET',
        route: 'GET /campaign/:id',
        path: `/campaign/${seg(id)}`,
        idempotent: true,
        parse: reader(wire.campaignRead, (w) => ({ info: toInfo(w.info), campaign: toCampaign(w.campaign) })),
      },
      signal,
    );
    return result.ok ? result.value : null;
  }

  /** Every URL of a link order, paging through GET /links/{id}; null while generating or on any failure. */
  async function findAllLinks(id: string, signal?: AbortSignal): Promise<string[] | null> {
    const urls: string[] = [];
    for (let offset = 0; ; ) {
      const result = await caller.request(
        {
          method: 'GET',
          route: 'GET /links/:id',
          path: `/links/${seg(id)}${queryString({ limit: LINKS_PAGE, offset })}`,
          idempotent: true,
          parse: reader(wire.links, (w) => toLinkPage(w, { limit: LINKS_PAGE, offset })),
        },
        signal,
      );
      if (!result.ok || !result.value.ready) return null;
      const { links, totalCount } = result.value;
      urls.push(...links.map((l) => l.url));
      offset += links.length;
      if (links.length === 0 || offset >= totalCount) return urls;
    }
  }

  /** The rescue of a create POST: only an unknown outcome is worth a lookup; `find` returns null if absent. */
  /** The id names an earlier, different order: the same answer a healthy upstream gives (IdempotencyConflict). */
  function idReusedFor(error: UpstreamError): UpstreamError {
    return amend(
      error,
      { kind: 'http', status: 422, code: 'ERROR_ID_CONFLICT', retryable: false },
      'the id was already used for a different order (found while recovering a lost answer)',
    );
  }

  function recoverBy<T>(route: string, find: (signal: AbortSignal | undefined, error: UpstreamError) => Promise<T | null>) {
    return async (error: UpstreamError, facts: FailureFacts) => {
      if (!facts.ambiguous) return null;
      const value = await find(facts.signal, error);
      logger?.warn(
        { route, errorKind: error.kind, status: error.status, attempts: error.attempts, found: value !== null },
        value === null ? 'upstream create outcome unknown; the order was not found by its id (or the lookup failed)' : 'upstream create recovered by looking the order up',
      );
      return value === null ? null : { value, recovered: true };
    };
  }

  return {
    ping: (opts) =>
      call(
        { method: 'GET', route: 'GET /ping', path: '/ping', idempotent: true, parse: reader(wire.ping, toAccount) },
        opts?.signal,
      ),

    createCampaign: (req, opts) =>
      call(
        {
          method: 'POST',
          route: 'POST /campaign',
          path: '/campaign',
          body: campaignBody(req),
          idempotent: true,
          parse: reader(
            wire.campaignCreated,
            (w): CreatedCampaign => ({
              info: toInfo(w.info),
              funding: toFunding(w.info.code, w.campaign.status),
              campaign: toCampaign(w.campaign),
              directLinks: null,
              recovered: false,
            }),
          ),
          rescue: recoverBy('POST /campaign', async (signal, error) => {
            const found = await findCampaign(req.id, signal);
            if (!found) return null;
            if (!isSameOrder(found.campaign, req)) throw idReusedFor(error);
            return {
              info: found.info,
              funding: toFunding(null, found.campaign.status),
              campaign: found.campaign,
              directLinks: null,
              recovered: true,
            };
          }),
        },
        opts?.signal,
      ),

    getCampaign: (ref, opts) =>
      call(
        {
          method: 'GET',
          route: 'GET /campaign/:id',
          path: `/campaign/${seg(ref)}`,
          idempotent: true,
          parse: reader(wire.campaignRead, (w): Campaign | null => toCampaign(w.campaign)),
          rescue: notFound,
        },
        opts?.signal,
      ),

    createDirectLinks: (req, opts) =>
      call(
        {
          method: 'POST',
          route: 'POST /direct_links',
          path: '/direct_links',
          body: {
            id: req.id,
            price_in_cents: req.priceInCents,
            brand_codes: req.brandCodes,
            region: req.region,
            link_count: req.linkCount,
            expiry: req.expiry,
          },
          idempotent: true,
          parse: reader(
            wire.directLinksCreated,
            (w): CreatedCampaign => ({
              info: toInfo(w.info),
              funding: toFunding(w.info.code, w.campaign.status),
              campaign: toCampaign(w.campaign),
              directLinks: w.direct_links,
              recovered: false,
            }),
          ),
          // The order alone is worth reporting: if its links cannot be read yet, directLinks stays null and
          // getLinks(id) fetches them later.
          rescue: recoverBy('POST /direct_links', async (signal, error) => {
            const found = await findCampaign(req.id, signal);
            if (!found) return null;
            if (!isSameOrder(found.campaign, req)) throw idReusedFor(error);
            return {
              info: found.info,
              funding: toFunding(null, found.campaign.status),
              campaign: found.campaign,
              directLinks: await findAllLinks(req.id, signal),
              recovered: true,
            };
          }),
        },
        opts?.signal,
      ),

    getLinks: (id, page, opts) =>
      call(
        {
          method: 'GET',
          route: 'GET /links/:id',
          path: `/links/${seg(id)}${queryString({ limit: page?.limit, offset: page?.offset })}`,
          idempotent: true,
          parse: reader(wire.links, (w) => toLinkPage(w, page ?? {})),
          rescue: notFound,
        },
        opts?.signal,
      ),

    createEmbeddedReward: (req, opts) =>
      call(
        {
          method: 'POST',
          route: 'POST /embedded',
          path: '/embedded',
          body: { id: req.id, brand_code: req.brandCode, price_in_cents: req.priceInCents },
          idempotent: true,
          parse: reader(
            wire.embeddedCreated,
            (w): EmbeddedReward => ({
              campaign: {
                id: w.campaign.id,
                uuid: w.campaign.uuid,
                brandCode: w.campaign.brand_code,
                priceInCents: w.campaign.price_in_cents,
                fees: w.campaign.fees ? toFees(w.campaign.fees) : null,
              },
              giftLink: w.gift_link,
              recovered: false,
            }),
          ),
          // An embedded order holds exactly one reward; its claim URL is that gift's link (`shortlink`), found
          // through GET /gifts?campaign_id=. Without the link there is nothing useful to return: the call
          // fails, saying the order exists and that a retry with the same id (which answers the original
          // response, link included) is safe.
          rescue: recoverBy('POST /embedded', async (signal, error) => {
            const found = await findCampaign(req.id, signal);
            if (!found) return null;
            const gifts = await caller.request(
              {
                method: 'GET',
                route: 'GET /gifts',
                path: `/gifts${giftQuery({ campaignId: req.id, limit: 1 })}`,
                idempotent: true,
                parse: reader(wire.giftList, (w) => w.gifts.map(toGift)),
              },
              signal,
            );
            const link = gifts.ok ? gifts.value[0]?.shortlink : null;
            if (!link) {
              throw amend(
                error,
                { retryable: true },
                `${error.message}; the order exists but its gift link could not be read, and retrying with the same id returns it`,
              );
            }
            const { campaign } = found;
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
        },
        opts?.signal,
      ),

    listGifts: (query, opts) =>
      call(
        {
          method: 'GET',
          route: 'GET /gifts',
          path: `/gifts${giftQuery(query)}`,
          idempotent: true,
          parse: reader(wire.giftList, (w) => toPage(w.gifts.map(toGift), w, query)),
        },
        opts?.signal,
      ),

    getGift: (uuid, opts) =>
      call(
        {
          method: 'GET',
          route: 'GET /gifts/:uuid',
          path: `/gifts/${seg(uuid)}`,
          idempotent: true,
          parse: reader(wire.giftRead, (w): Gift | null => toGift(w.gift)),
          rescue: notFound,
        },
        opts?.signal,
      ),

    resendGift: (uuid, opts) =>
      call(
        {
          method: 'PUT',
          route: 'PUT /gifts/:uuid',
          path: `/gifts/${seg(uuid)}`,
          body: { resend: true },
          // Every resend sends another email: never repeated behind the caller's back.
          idempotent: false,
          parse: reader(wire.giftRead, (w) => toGift(w.gift)),
        },
        opts?.signal,
      ),

    cancelGift: (uuid, opts) =>
      call(
        {
          method: 'DELETE',
          route: 'DELETE /gifts/:uuid',
          path: `/gifts/${seg(uuid)}`,
          // Cancelling a cancelled reward answers it unchanged, so a repeat is harmless.
          idempotent: true,
          parse: reader(wire.giftRead, (w) => toGift(w.gift)),
        },
        opts?.signal,
      ),

    listBrands: (query, opts) =>
      call(
        {
          method: 'GET',
          route: 'GET /brands',
          path: `/brands${brandQuery(query)}`,
          idempotent: true,
          parse: reader(wire.brandList, (w) => toPage(w.brands.map(toBrandSummary), w, query)),
        },
        opts?.signal,
      ),

    getBrand: (code, opts) =>
      call(
        {
          method: 'GET',
          route: 'GET /brands/:code',
          path: `/brands/${seg(code)}`,
          idempotent: true,
          parse: reader(wire.brandRead, (w): Brand | null => toBrand(w.brand)),
          // The upstream answers an unknown brand code with 422 rather than 404.
          rescue: async (error) =>
            error.status === 404 || (error.status === 422 && error.code === 'ERROR_BRANDS_NO_SUCH_BRAND')
              ? { value: null, recovered: false }
              : null,
        },
        opts?.signal,
      ),

    listRegions: (opts) =>
      call(
        {
          method: 'GET',
          route: 'GET /regions',
          path: '/regions',
          idempotent: true,
          parse: reader(wire.regions, (w) =>
            w.regions.map((r) => ({ id: r.id, name: r.name, imageUrl: r.image_url ?? null })),
          ),
        },
        opts?.signal,
      ),

    getFunds: (opts) =>
      call(
        {
          method: 'GET',
          route: 'GET /funds',
          path: '/funds',
          idempotent: true,
          parse: reader(wire.funds, (w) => toFunds(w.fundsbycurrency)),
        },
        opts?.signal,
      ),

    addFunds: (req, opts) =>
      call(
        {
          method: 'POST',
          route: 'POST /funds',
          path: '/funds',
          body: { id: req.id, currencyisocode: req.currency, fund_amount_in_cents: req.amountInCents },
          idempotent: true,
          parse: reader(wire.funds, (w) => toFunds(w.fundsbycurrency)),
          // No endpoint reads a top-up by its id, so an unclear failure cannot be resolved here; say so.
          rescue: async (error: UpstreamError, facts: FailureFacts) => {
            if (!facts.ambiguous) return null;
            throw amend(
              error,
              { retryable: true },
              `${error.message}; the top-up may or may not have been made, and retrying with the same id is safe`,
            );
          },
        },
        opts?.signal,
      ),

    close: () => caller.close(),
  };
}
