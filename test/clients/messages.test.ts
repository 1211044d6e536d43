import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { apiKeys, bearer, it } from '../support/test.js';

// Messages that name the fix, each with its code: what a client developer sees first when something is off.

const keys = apiKeys({ app: ['rewards:read', 'funds:read'] });
const keyed = { env: { GATEWAY_API_KEYS: JSON.stringify(Object.values(keys)) } };

describe('API keys', () => {
  it('tells a missing key, a malformed header and an unknown key apart', async ({ gatewayWith }) => {
    const gw = await gatewayWith(keyed);
    const message = async (headers: Record<string, string>) => {
      const res = await gw.gql('{ regions { id } }', {}, headers);
      expect(res.status).toBe(401);
      expect(res.body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
      return res.body.errors![0]!.message;
    };
    const missing = await message({});
    const malformed = await message({ authorization: keys.app.key });
    const unknown = await message({ authorization: 'Bearer not-a-key-of-this-gateway-000000' });
    expect(missing).toMatch(/Send a gateway API key: Authorization: Bearer <key>.*connection_init/);
    expect(malformed).toMatch(/not "Bearer <key>"/);
    expect(unknown).toMatch(/not one this gateway knows/);
    expect(new Set([missing, malformed, unknown]).size).toBe(3);
    expect((await gw.gql('{ regions { id } }', {}, bearer(keys.app))).status).toBe(200);
  });

  it('closes a WebSocket without a key with 4403 and says the key goes in the connection_init payload', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ ...keyed, listen: true });
    const socket = new WebSocket(`${gw.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    const { code, reason } = await closed;
    expect(code).toBe(4403);
    expect(reason).toMatch(/connection_init payload.*"authorization":"Bearer <key>"/);
  });
});

describe('input', () => {
  it('says a SafeInt sent as a string is a string, as a variable and in the document', async ({ gatewayWith }) => {
    const gw = await gatewayWith();
    const asVariable = await gw.gql('query ($min: SafeInt) { brands(filter: { minPriceInCents: $min }, first: 1) { totalCount } }', {
      min: '500',
    });
    expect(asVariable.body.errors![0]!.message).toMatch(/SafeInt takes whole cents as a JSON number, not a string/);
    expect(asVariable.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const inline = await gw.gql('{ brands(filter: { minPriceInCents: "500" }, first: 1) { totalCount } }');
    expect(inline.body.errors![0]!.message).toMatch(/not a string/);
  });
});

describe('brand codes', () => {
  // brand(code:) answers null for a code it does not know, as before; a near miss adds a hint beside the data,
  // error-shaped and with the same sentence a create's ValidationError gives, so no client's error handling
  // changes.
  it('answers brand(code:) with a near miss null, and names the codes it probably meant in extensions.hints', async ({ gateway }) => {
    const message = (code: string) => `${code} is not a known brand; did you mean sbxcoffeeus or sbxcoffeeca?`;
    // Twice: the first run is interpreted, the second compiled (graphql-jit).
    for (let run = 0; run < 2; run++) {
      const res = await gateway.gql('{ brand(code: "sbxcofeeus") { brandCode } coffee: brand(code: "SBXCOFEEUS") { brandCode } }');
      expect(res.body.data).toEqual({ brand: null, coffee: null });
      expect(res.body.errors).toBeUndefined();
      expect((res.body as { extensions?: { hints?: unknown } }).extensions?.hints).toEqual([
        { message: message('sbxcofeeus'), path: ['brand'], extensions: { code: 'BAD_USER_INPUT', suggestions: ['sbxcoffeeus', 'sbxcoffeeca'] } },
        { message: message('SBXCOFEEUS'), path: ['coffee'], extensions: { code: 'BAD_USER_INPUT', suggestions: ['sbxcoffeeus', 'sbxcoffeeca'] } },
      ]);
    }
  });

  it('adds no hint for a code nothing resembles, nor for a code it knows', async ({ gateway }) => {
    const res = await gateway.gql('{ brand(code: "no-such-thing-at-all") { brandCode } known: brand(code: "sbxcoffeeus") { brandCode } }');
    expect(res.body.data).toEqual({ brand: null, known: { brandCode: 'sbxcoffeeus' } });
    expect((res.body as { extensions?: unknown }).extensions).toBeUndefined();
  });
});

describe('CORS', () => {
  it('answers a refused preflight with CORS_ORIGIN_NOT_ALLOWED naming CORS_ORIGINS', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true, env: { CORS_ORIGINS: 'https://tools.example.com' } });
    const preflight = (origin: string) =>
      fetch(`${gw.url}/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const refused = await preflight('https://evil.example.net');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const body = await refused.json();
    expect(body.errors[0].extensions.code).toBe('CORS_ORIGIN_NOT_ALLOWED');
    expect(body.errors[0].message).toMatch(/CORS_ORIGINS/);
    const allowed = await preflight('https://tools.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://tools.example.com');
  });
});

describe('schema descriptions', () => {
  it('explain an order CREATING beside rewards DELIVERED', () => {
    const sdl = readFileSync(fileURLToPath(new URL('../../schema.graphql', import.meta.url)), 'utf8');
    const described = (type: string) => new RegExp(`"""\\n([^"]+)\\n"""\\nenum ${type} `).exec(sdl)?.[1] ?? '';
    expect(described('CampaignStatus')).toMatch(/CREATING.*rewards DELIVERED is normal/s);
    expect(described('DeliveryStatus')).toMatch(/DELIVERED while its order is still CREATING/s);
  });
});
