// The hand-written fast paths for gift lists, gift reads and campaign reads (wire.ts) must read exactly what the zod schema reads:
// the same value for the shape it accepts, and for everything else the schema's own answer (tolerated
// variants read, bad bodies refused with the same problem).
import { describe, expect, it } from 'vitest';
import { reader, wire } from '../../src/upstream/wire.js';

const gift = {
  uuid: 'g-1',
  campaign_uuid: 'c-1',
  campaign_id: 'order-1',
  status: 'SENT_AND_REDEEMABLE',
  delivery_status: 'DELIVERED',
  price_in_cents: 2500,
  brand_code: 'AMAZONUS',
  recipient_email: 'a@example.com',
  recipient_name: 'Ann',
  redelivery_count: 0,
  created_date: '2026-03-08 02:30:00', // spring-forward gap
  delivery_date: '2026-11-01 01:30:00', // fall-back overlap
  redeemed_date: null,
  expiry: '2027-03-08',
  management_dashboard_link: null,
  shortlink: 'https://sl.example/x',
  unknown_field: { dropped: true },
};
const page = { gifts: [gift, { ...gift, uuid: 'g-2', redeemed_date: '' }], number_of_results: 2, limit: 20, offset: 0, total_count: 2 };

/** What the zod schema alone makes of the body, in the reader's terms. */
function byZod<S extends typeof wire.giftList | typeof wire.giftRead | typeof wire.campaignRead>(schema: S, json: unknown) {
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problem: expect.any(String) };
}

const cases: [string, unknown][] = [
  ['the shape the upstream sends', page],
  ['absent optional fields', { gifts: [{ uuid: 'g', campaign_uuid: 'c', status: 'S', delivery_status: 'D', price_in_cents: 1 }] }],
  ['an empty page', { gifts: [] }],
  ['ids as numbers', { gifts: [{ ...gift, uuid: 7, campaign_id: 8 }] }],
  ['an integer as a string', { ...page, total_count: '2', gifts: [{ ...gift, price_in_cents: '2500' }] }],
  ['a date with a zone', { gifts: [{ ...gift, created_date: '2026-03-08T10:30:00Z' }] }],
  ['a date that is not one', { gifts: [{ ...gift, created_date: 'yesterday' }] }],
  ['an impossible day', { gifts: [{ ...gift, delivery_date: '2026-02-30 10:00:00' }] }],
  ['a missing uuid', { gifts: [{ ...gift, uuid: undefined }] }],
  ['a price that is not an integer', { gifts: [{ ...gift, price_in_cents: 25.5 }] }],
  ['gifts that are not a list', { gifts: {} }],
  ['not an object', 'oops'],
  ['null', null],
];

describe('gift list fast path', () => {
  it.each(cases)('reads %s exactly as the zod schema does', (_name, json) => {
    expect(reader(wire.giftList, (w) => w)(json)).toEqual(byZod(wire.giftList, json));
  });

  it('reads a single gift exactly as the zod schema does', () => {
    for (const json of [{ gift }, { gift: { ...gift, uuid: 3 } }, { gift: { ...gift, created_date: 'x' } }, {}]) {
      expect(reader(wire.giftRead, (w) => w)(json)).toEqual(byZod(wire.giftRead, json));
    }
  });

  it('gives every read its own Date objects', () => {
    const read = reader(wire.giftList, (w) => w);
    const [one, two] = [read(page), read(page)];
    if (!one.ok || !two.ok) throw new Error('not read');
    expect(one.value.gifts[0]!.created_date).toEqual(two.value.gifts[0]!.created_date);
    expect(one.value.gifts[0]!.created_date).not.toBe(two.value.gifts[0]!.created_date);
  });
});

// A campaign as GET /campaign/:id answers it (the sandbox's shape), and the variants the zod schema tolerates
// or refuses.
const costEntry = {
  fee_type: 'PREFUND_GIFT_COST',
  percentage: 0,
  amount_in_cents: 2000,
  currency: 'USD',
  tax_type: 'NOTAX',
  tax_in_cents: 0,
  number_of_gifts: 2,
  fee_per_gift_in_cents: 1000,
};
const campaign = {
  id: 'order-1',
  uuid: 'c-1',
  status: 'CAMPAIGN_CREATED',
  delivery_type: 'SERVICE_EMAIL',
  company_name: 'Sandbox Company',
  message: 'M',
  subject: 'S',
  suppress_default_greeting: false,
  gift_template: null,
  contacts: [
    { email: 'a@example.com', firstname: 'A', lastname: null, message: 'New contact', added_succesfully: true },
    { email: 'b@example.com', firstname: 'B', lastname: 'C', message: null, added_successfully: false },
  ],
  contacts_success_count: 2,
  contacts_failure_count: 0,
  price_in_cents: 1000,
  brand_codes: ['sbxcoffeeus'],
  region: null,
  fees: { cost_entries: [costEntry], subtotal_in_cents: 2000, tax_in_cents: 0, tax_type: 'NOTAX', total_in_cents: 2000 },
  expiry: null,
  link_count: null,
  created_date: '2026-11-27 00:21:43',
};
const info = { code: 'INFO_CAMPAIGN_RETRIEVED', name: 'Campaign retrieved', message: 'The campaign was retrieved.' };
const read = { info, status: 200, campaign };

const campaignCases: [string, unknown][] = [
  ['the shape the upstream sends', read],
  ['no info', { campaign }],
  ['a null info', { info: null, campaign }],
  ['only what is required', { campaign: { id: 'o', uuid: 'u', status: 'S', delivery_type: 'D', price_in_cents: 1 } }],
  ['null lists and fees', { campaign: { ...campaign, contacts: null, brand_codes: null, fees: null } }],
  ['fees without cost entries', { campaign: { ...campaign, fees: { subtotal_in_cents: 1, total_in_cents: 1 } } }],
  ['ids as numbers', { campaign: { ...campaign, id: 7, uuid: 8, region: 3 } }],
  ['an integer as a string', { campaign: { ...campaign, price_in_cents: '1000', contacts_success_count: '2' } }],
  ['a flag as a string', { campaign: { ...campaign, suppress_default_greeting: 'true' } }],
  ['a contact flag as a string', { campaign: { ...campaign, contacts: [{ email: 'a@example.com', added_succesfully: 'false' }] } }],
  ['a percentage as a string', { campaign: { ...campaign, fees: { ...campaign.fees, cost_entries: [{ ...costEntry, percentage: '2.5' }] } } }],
  ['a cost entry without its amount', { campaign: { ...campaign, fees: { ...campaign.fees, cost_entries: [{ fee_type: 'X' }] } } }],
  ['a contact without an email', { campaign: { ...campaign, contacts: [{ firstname: 'A' }] } }],
  ['a brand code that is not a string', { campaign: { ...campaign, brand_codes: ['a', 2] } }],
  ['contacts that are not a list', { campaign: { ...campaign, contacts: {} } }],
  ['an info without a code', { info: { name: 'x' }, campaign }],
  ['a missing status', { campaign: { ...campaign, status: undefined } }],
  ['a price that is not an integer', { campaign: { ...campaign, price_in_cents: 10.5 } }],
  ['a campaign that is a list', { campaign: [campaign] }],
  ['no campaign', { info }],
  ['not an object', 'oops'],
  ['null', null],
];

describe('campaign read fast path', () => {
  it.each(campaignCases)('reads %s exactly as the zod schema does', (_name, json) => {
    expect(reader(wire.campaignRead, (w) => w)(json)).toEqual(byZod(wire.campaignRead, json));
  });
});
