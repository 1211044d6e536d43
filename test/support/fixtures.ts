import type { TestSandbox } from './sandbox.js';

// Orders created straight through the sandbox's REST API, so read tests do not depend on the gateway's
// own mutations.

let sequence = 0;
export function uniqueId(prefix = 'order'): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${sequence}`;
}

export async function createEmailOrder(
  sandbox: TestSandbox,
  options: { id?: string; recipients?: number; brandCodes?: string[]; priceInCents?: number } = {},
): Promise<{ id: string; uuid: string }> {
  const id = options.id ?? uniqueId('email');
  const contacts = Array.from({ length: options.recipients ?? 2 }, (_, i) => ({
    email: `recipient${i}@example.com`,
    firstname: `First${i}`,
    lastname: `Last${i}`,
  }));
  const res = await sandbox.api('POST', '/campaign', {
    id,
    price_in_cents: options.priceInCents ?? 1000,
    brand_codes: options.brandCodes ?? ['sbxcoffeeus'],
    contacts,
    subject: 'Thank you',
    message: 'A small thank-you.',
  });
  if (res.status !== 200) throw new Error(`fixture order failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id, uuid: res.body.campaign.uuid };
}

export async function createDirectLinkOrder(
  sandbox: TestSandbox,
  options: { id?: string; linkCount?: number; brandCodes?: string[]; priceInCents?: number } = {},
): Promise<{ id: string; uuid: string; links: string[] }> {
  const id = options.id ?? uniqueId('links');
  const res = await sandbox.api('POST', '/direct_links', {
    id,
    price_in_cents: options.priceInCents ?? 1000,
    brand_codes: options.brandCodes ?? ['sbxcoffeeus'],
    link_count: options.linkCount ?? 3,
  });
  if (res.status !== 200) throw new Error(`fixture links failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id, uuid: res.body.campaign.uuid, links: res.body.direct_links };
}
