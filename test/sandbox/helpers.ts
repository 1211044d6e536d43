// Small builders for the sandbox suite: valid order bodies with overridable fields, and readers for the
// records tests assert on.
import { expect } from 'vitest';
import type { TestSandbox } from '../support/sandbox.js';

let counter = 0;
export const uniqueId = (prefix = 'order') => `${prefix}-${++counter}-${Date.now()}`;

export function emailOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: uniqueId('email'),
    price_in_cents: 1000,
    brand_codes: ['sbxcoffeeus'],
    contacts: [{ email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace' }],
    message: '<p>Thank you</p>',
    subject: 'A reward for you',
    ...overrides,
  };
}

export function linkOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: uniqueId('links'), price_in_cents: 2500, brand_codes: ['sbxbooksus'], link_count: 2, ...overrides };
}

/** Creates an order and insists it was accepted. */
export async function create(t: TestSandbox, path: '/campaign' | '/direct_links' | '/embedded', body: Record<string, unknown>) {
  const res = await t.api('POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export async function giftsOf(t: TestSandbox, campaignUuid: string): Promise<any[]> {
  const res = await t.api('GET', `/gifts?campaign_uuid=${campaignUuid}&limit=100&order=asc`);
  expect(res.status).toBe(200);
  return res.body.gifts;
}

export async function gift(t: TestSandbox, uuid: string): Promise<any> {
  const res = await t.api('GET', `/gifts/${uuid}`);
  expect(res.status).toBe(200);
  return res.body.gift;
}

export async function balance(t: TestSandbox, currency = 'USD'): Promise<{ available: number; pending: number; reserved: number }> {
  const res = await t.api('GET', '/funds');
  const b = res.body.fundsbycurrency[currency];
  return { available: b.available_in_cents, pending: b.pending_in_cents, reserved: b.reserved_in_cents };
}

export async function campaign(t: TestSandbox, ref: string): Promise<any> {
  const res = await t.api('GET', `/campaign/${encodeURIComponent(ref)}`);
  expect(res.status).toBe(200);
  return res.body.campaign;
}

/** POSTs to the control API and returns status and body, for the refusal cases the typed helper throws on. */
export async function rawControl(t: TestSandbox, method: string, path: string, body?: string) {
  const res = await fetch(`${t.sandbox.origin}/__sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
}

export function expectError(res: { status: number; body: any }, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.name).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
}
