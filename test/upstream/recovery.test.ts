// Deciding whether an order found under a caller id is this request's: every echoed field must agree.
import { describe, expect, it } from 'vitest';
import { askedCampaign, askedDirectLinks, askedEmbedded, conflictingFields } from '../../src/upstream/recovery.js';
import type { Campaign } from '../../src/upstream/types.js';

function order(overrides: Partial<Campaign> = {}): Campaign {
  return {
    id: 'o-1',
    uuid: 'u-1',
    status: 'CAMPAIGN_CREATED',
    deliveryType: 'SERVICE_EMAIL',
    companyName: null,
    message: 'Thanks!',
    subject: 'Hello',
    suppressDefaultGreeting: false,
    giftTemplate: null,
    contacts: [
      { email: 'Ada@Example.com', firstName: null, lastName: null, message: null, addedSuccessfully: true },
      { email: 'grace@example.com', firstName: null, lastName: null, message: null, addedSuccessfully: true },
    ],
    contactsSuccessCount: 2,
    contactsFailureCount: 0,
    priceInCents: 1000,
    brandCodes: ['sbxcoffeeus'],
    region: null,
    fees: null,
    expiry: null,
    linkCount: null,
    ...overrides,
  };
}

const email = {
  id: 'o-1',
  priceInCents: 1000,
  brandCodes: ['SBXCOFFEEUS'],
  contacts: [{ email: 'grace@example.com' }, { email: 'ada@example.com' }],
  subject: 'Hello',
  message: 'Thanks!',
};

describe('conflictingFields', () => {
  it('accepts the same order: any email delivery name, brands and recipients as case-insensitive sets', () => {
    expect(conflictingFields(order(), askedCampaign(email))).toEqual([]);
    expect(conflictingFields(order({ deliveryType: 'OTHERSERVICE_EMAIL' }), askedCampaign(email))).toEqual([]);
  });

  it('names every field that differs', () => {
    const found = order({ priceInCents: 2500, expiry: '2027-01-31', contacts: [] });
    expect(conflictingFields(found, askedCampaign({ ...email, message: 'Other' }))).toEqual(['priceInCents', 'contacts', 'expiry', 'message']);
  });

  it('recipients and link count are compared only when the record echoes them; expiry always', () => {
    expect(conflictingFields(order({ contacts: null }), askedCampaign(email))).toEqual([]);
    const shortlinks = order({ deliveryType: 'SHORTLINK', contacts: null, linkCount: null });
    expect(conflictingFields(shortlinks, askedCampaign({ ...email, contacts: undefined, deliveryType: 'SHORTLINK', linkCount: 2 }))).toEqual([]);
    expect(conflictingFields(order(), askedCampaign({ ...email, expiry: '2027-01-01' }))).toEqual(['expiry']);
  });

  it('a subject or message the request left to a template is not compared', () => {
    expect(conflictingFields(order({ subject: 'From the template' }), askedCampaign({ ...email, subject: undefined, giftTemplate: 't-1' }))).toEqual(
      [],
    );
  });

  it('a region order matches by region name alone, and never a brand-list request', () => {
    const full = order({ region: 'USA', brandCodes: ['a', 'b', 'c'] });
    expect(conflictingFields(full, askedCampaign({ ...email, brandCodes: undefined, region: 'usa' }))).toEqual([]);
    expect(conflictingFields(full, askedCampaign({ ...email, brandCodes: ['a', 'b', 'c'] }))).toEqual(['reward']);
    expect(conflictingFields(order(), askedCampaign({ ...email, brandCodes: undefined, region: 'USA' }))).toEqual(['reward']);
  });

  it('direct links compare kind, link count and expiry; embedded rewards kind and brand', () => {
    const links = order({ deliveryType: 'DIRECT_LINK', contacts: null, linkCount: 3, subject: null });
    const asked = { id: 'o-1', priceInCents: 1000, brandCodes: ['sbxcoffeeus'], linkCount: 3 };
    expect(conflictingFields(links, askedDirectLinks(asked))).toEqual([]);
    expect(conflictingFields(links, askedDirectLinks({ ...asked, linkCount: 4, expiry: '2027-01-01' }))).toEqual(['linkCount', 'expiry']);
    expect(conflictingFields(links, askedEmbedded({ id: 'o-1', brandCode: 'sbxbooksus', priceInCents: 1000 }))).toEqual(['deliveryType', 'brand']);
  });
});
