import type { SandboxProcess } from './processes.js';

// Small typed calls to the sandbox (its reward API for fixtures, its control API for stats, faults and
// redemptions) and to the gateway's /graphql, all with fetch.

export interface SandboxStats {
  requests: Record<string, number>;
  creates: Record<string, number>;
  inFlightMax: number;
  /** Requests per wall-clock second (epoch seconds), and of them those the capacity fault answered 429. */
  perSecond: Record<string, number>;
  throttledPerSecond: Record<string, number>;
}

export interface FaultRule {
  route?: string;
  status?: 429 | 500 | 502 | 503;
  rate: number;
  after?: boolean;
}

async function send(url: string, init: RequestInit & { json?: unknown } = {}): Promise<any> {
  const { json, ...rest } = init;
  const res = await fetch(url, {
    ...rest,
    headers: { ...(json !== undefined ? { 'content-type': 'application/json' } : {}), ...rest.headers },
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

export function sandboxClient(sandbox: SandboxProcess) {
  const control = `${sandbox.origin}/__sandbox`;
  const api = (method: string, path: string, json?: unknown) =>
    send(sandbox.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${sandbox.token}`, 'accept-encoding': 'identity' },
      ...(json !== undefined ? { json } : {}),
    });
  return {
    stats: (): Promise<SandboxStats> => send(`${control}/stats`),
    fault: (rule: FaultRule) => send(`${control}/faults`, { method: 'POST', json: rule }),
    clearFaults: () => send(`${control}/faults`, { method: 'DELETE' }),
    /** The capacity fault: a token bucket of `per_second` above which every request is answered 429. */
    capacity: (setting: { per_second: number; burst?: number }) => send(`${control}/capacity`, { method: 'POST', json: setting }),
    redeem: (giftUuid: string) => send(`${control}/gifts/${encodeURIComponent(giftUuid)}/redeem`, { method: 'POST', json: {} }),

    /** An email order straight through the reward API; returns its uuid and its rewards' uuids. */
    async createEmailOrder(id: string, options: { recipients: number; brandCode: string }): Promise<{ id: string; uuid: string; gifts: string[] }> {
      const created = await api('POST', '/campaign', {
        id,
        price_in_cents: 1000,
        brand_codes: [options.brandCode],
        contacts: Array.from({ length: options.recipients }, (_, i) => ({ email: `bench${i}@example.com`, firstname: `R${i}` })),
        subject: 'Benchmark',
        message: 'A benchmark reward.',
      });
      const uuid: string = created.campaign.uuid;
      const listed = await api('GET', `/gifts?campaign_uuid=${uuid}&limit=100`);
      return { id, uuid, gifts: (listed.gifts as { uuid: string }[]).map((g) => g.uuid) };
    },
  };
}

export type SandboxClient = ReturnType<typeof sandboxClient>;

/** Requests per route between two stats snapshots. */
export function requestDelta(before: SandboxStats, after: SandboxStats): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [route, n] of Object.entries(after.requests)) {
    const d = n - (before.requests[route] ?? 0);
    if (d) delta[route] = d;
  }
  return delta;
}

export function total(delta: Record<string, number>): number {
  return Object.values(delta).reduce((a, b) => a + b, 0);
}

export async function gql(url: string, query: string, variables?: Record<string, unknown>): Promise<{ data?: any; errors?: unknown[] }> {
  return send(`${url}/graphql`, { method: 'POST', headers: { accept: 'application/json' }, json: { query, variables } });
}
