// The upstream client: one method per reward API endpoint, each returning a normalised type. Everything about
// how a request travels (bulkhead, timeouts, retries, error mapping, the one CallEvent) lives in call.ts; this
// file says per endpoint which route, which body, how to read the answer, and how to rescue a failure.
//
// Recovery after a lost answer (and naming the fields of an id conflict) is recovery.ts's.

import { createHash } from 'node:crypto';
import { pathSegment } from './path-segment.js';
import { createRedactor, type Redact } from '../redaction/redaction.js';
import { createCaller, type Caller, type CallSpec } from './call.js';
import { resolveConfig, type UpstreamClientOptions } from './config.js';
import type { UpstreamError } from './errors.js';
import { createRecovery, type Recovery } from './recovery.js';
import { toAccount, toBrand, toBrandSummary, toCampaign, toFees, toFunding, toFunds, toGift, toInfo, toLinkPage, toPage } from './normalise.js';
import { brandQuery, giftQuery, queryString } from './query.js';
import type {
  AddFundsRequest,
  Brand,
  BrandQuery,
  CallOptions,
  Campaign,
  CreateCampaignRequest,
  CreateDirectLinksRequest,
  CreatedCampaign,
  CreateEmbeddedRequest,
  EmbeddedReward,
  GiftQuery,
  Shield,
  UpstreamClient,
} from './types.js';
import { GATEWAY_SCOPE, type UpstreamScope } from './scope.js';
import { reader, wire } from './wire.js';

export type { UpstreamClientOptions } from './config.js';

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

const readFunds = reader(wire.funds, (w) => toFunds(w.fundsbycurrency));

/** The readers that depend on nothing but the answer and the client's redactor, made once per client. */
function readers(text: Redact) {
  return {
    account: reader(wire.ping, (w) => toAccount(w, text)),
    campaign: reader(wire.campaignRead, (w): Campaign | null => toCampaign(w.campaign, text)),
    gift: reader(wire.giftRead, (w) => toGift(w.gift, text)),
    brand: reader(wire.brandRead, (w): Brand | null => toBrand(w.brand, text)),
    regions: reader(wire.regions, (w) =>
      w.regions.map((r) => ({ id: r.id, name: text(r.name), imageUrl: r.image_url == null ? null : text(r.image_url) })),
    ),
  };
}

/**
 * The client's methods, every call made in one scope. A view is one small object whatever its number of
 * methods: each GraphQL operation (and each subscription, for its whole life) holds one.
 */
class ScopedClient implements UpstreamClient {
  readonly #core: Core;
  readonly #scope: UpstreamScope;

  constructor(core: Core, scope: UpstreamScope) {
    this.#core = core;
    this.#scope = scope;
  }

  inScope(fields: Partial<UpstreamScope>): UpstreamClient {
    return new ScopedClient(this.#core, { ...this.#scope, ...fields });
  }

  get identity(): string {
    return this.#core.identity;
  }

  get shield(): Shield {
    return this.#core.caller.shield;
  }

  #call<T>(spec: CallSpec<T>, signal: AbortSignal | undefined): Promise<T> {
    return this.#core.caller.call(spec, this.#scope, signal);
  }

  ping(opts?: CallOptions) {
    return this.#call({ method: 'GET', route: 'GET /ping', path: '/ping', idempotent: true, parse: this.#core.read.account }, opts?.signal);
  }

  createCampaign(req: CreateCampaignRequest, opts?: CallOptions) {
    return this.#call(
      {
        method: 'POST',
        route: 'POST /campaign',
        path: '/campaign',
        body: campaignBody(req),
        idempotent: true,
        parse: reader(wire.campaignCreated, (w): CreatedCampaign => ({
          info: toInfo(w.info, this.#core.text),
          funding: toFunding(w.info.code, w.campaign.status),
          campaign: toCampaign(w.campaign, this.#core.text),
          directLinks: null,
          recovered: false,
        })),
        rescue: this.#core.recovery.campaign(req),
      },
      opts?.signal,
    );
  }

  getCampaign(ref: string, opts?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        route: 'GET /campaign/:id',
        path: `/campaign/${seg(ref)}`,
        idempotent: true,
        parse: this.#core.read.campaign,
        rescue: notFound,
      },
      opts?.signal,
    );
  }

  createDirectLinks(req: CreateDirectLinksRequest, opts?: CallOptions) {
    return this.#call(
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
        parse: reader(wire.directLinksCreated, (w): CreatedCampaign => ({
          info: toInfo(w.info, this.#core.text),
          funding: toFunding(w.info.code, w.campaign.status),
          campaign: toCampaign(w.campaign, this.#core.text),
          directLinks: w.direct_links.map(this.#core.text),
          recovered: false,
        })),
        rescue: this.#core.recovery.directLinks(req),
      },
      opts?.signal,
    );
  }

  getLinks(id: string, page?: { limit?: number; offset?: number }, opts?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        route: 'GET /links/:id',
        path: `/links/${seg(id)}${queryString({ limit: page?.limit, offset: page?.offset })}`,
        idempotent: true,
        parse: reader(wire.links, (w) => toLinkPage(w, page ?? {}, this.#core.text)),
        rescue: notFound,
      },
      opts?.signal,
    );
  }

  createEmbeddedReward(req: CreateEmbeddedRequest, opts?: CallOptions) {
    return this.#call(
      {
        method: 'POST',
        route: 'POST /embedded',
        path: '/embedded',
        body: { id: req.id, brand_code: req.brandCode, price_in_cents: req.priceInCents },
        idempotent: true,
        parse: reader(wire.embeddedCreated, (w): EmbeddedReward => ({
          campaign: {
            id: w.campaign.id,
            uuid: w.campaign.uuid,
            brandCode: w.campaign.brand_code,
            priceInCents: w.campaign.price_in_cents,
            fees: w.campaign.fees ? toFees(w.campaign.fees) : null,
          },
          giftLink: this.#core.text(w.gift_link),
          recovered: false,
        })),
        rescue: this.#core.recovery.embedded(req),
      },
      opts?.signal,
    );
  }

  listGifts(query: GiftQuery, opts?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        route: 'GET /gifts',
        path: `/gifts${giftQuery(query)}`,
        idempotent: true,
        parse: reader(wire.giftList, (w) =>
          toPage(
            w.gifts.map((g) => toGift(g, this.#core.text)),
            w,
            query,
          ),
        ),
      },
      opts?.signal,
    );
  }

  getGift(uuid: string, opts?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        route: 'GET /gifts/:uuid',
        path: `/gifts/${seg(uuid)}`,
        idempotent: true,
        parse: this.#core.read.gift,
        rescue: notFound,
      },
      opts?.signal,
    );
  }

  resendGift(uuid: string, opts?: CallOptions) {
    return this.#call(
      {
        method: 'PUT',
        route: 'PUT /gifts/:uuid',
        path: `/gifts/${seg(uuid)}`,
        body: { resend: true },
        // Every resend sends another email: never repeated behind the caller's back.
        idempotent: false,
        parse: this.#core.read.gift,
      },
      opts?.signal,
    );
  }

  cancelGift(uuid: string, opts?: CallOptions) {
    return this.#call(
      {
        method: 'DELETE',
        route: 'DELETE /gifts/:uuid',
        path: `/gifts/${seg(uuid)}`,
        // Cancelling a cancelled reward answers it unchanged, so a repeat is harmless.
        idempotent: true,
        parse: this.#core.read.gift,
      },
      opts?.signal,
    );
  }

  listBrands(query: BrandQuery, opts?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        route: 'GET /brands',
        path: `/brands${brandQuery(query)}`,
        idempotent: true,
        parse: reader(wire.brandList, (w) =>
          toPage(
            w.brands.map((b) => toBrandSummary(b, this.#core.text)),
            w,
            query,
          ),
        ),
      },
      opts?.signal,
    );
  }

  getBrand(code: string, opts?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        route: 'GET /brands/:code',
        path: `/brands/${seg(code)}`,
        idempotent: true,
        parse: this.#core.read.brand,
        // The upstream answers an unknown brand code with 422 rather than 404.
        rescue: async (error) =>
          error.status === 404 || (error.status === 422 && error.code === 'ERROR_BRANDS_NO_SUCH_BRAND') ? { value: null, recovered: false } : null,
      },
      opts?.signal,
    );
  }

  listRegions(opts?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        route: 'GET /regions',
        path: '/regions',
        idempotent: true,
        parse: this.#core.read.regions,
      },
      opts?.signal,
    );
  }

  getFunds(opts?: CallOptions) {
    return this.#call(
      {
        method: 'GET',
        route: 'GET /funds',
        path: '/funds',
        idempotent: true,
        parse: readFunds,
      },
      opts?.signal,
    );
  }

  addFunds(req: AddFundsRequest, opts?: CallOptions) {
    return this.#call(
      {
        method: 'POST',
        route: 'POST /funds',
        path: '/funds',
        body: { id: req.id, currencyisocode: req.currency, fund_amount_in_cents: req.amountInCents },
        idempotent: true,
        parse: readFunds,
        // No endpoint reads a top-up by its id, so an unclear failure stays an unknown outcome (call.ts marks
        // it); a retry with the same id is safe and never tops up twice.
      },
      opts?.signal,
    );
  }

  close(): Promise<void> {
    return this.#core.caller.close();
  }
}

interface Core {
  caller: Caller;
  recovery: Recovery;
  identity: string;
  /** The upstream's free text through the gateway's redactor (normalise.ts). */
  text: Redact;
  read: ReturnType<typeof readers>;
}

/** The base URL (it may carry credentials) and the token, each hashed: nothing of either can be read back. */
function identityOf(baseUrl: string, token: string): string {
  const tokenHash = createHash('sha256').update(token).digest('hex');
  return createHash('sha256').update(baseUrl).update('\0').update(tokenHash).digest('hex').slice(0, 16);
}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const config = resolveConfig(opts);
  const text = opts.redact ?? createRedactor([opts.token]).redact;
  const caller = createCaller(config, text);
  return new ScopedClient(
    { caller, recovery: createRecovery(caller, config.logger, text), identity: identityOf(opts.baseUrl, opts.token), text, read: readers(text) },
    GATEWAY_SCOPE,
  );
}
