// Shared test helper: a real sandbox on an ephemeral 127.0.0.1 port, a bearer-authenticated client for its
// reward API and typed wrappers for its control API. Used by the sandbox suite and the gateway suites.
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import type { StatsSnapshot } from '../../src/sandbox/stats.js';

export type SandboxStats = StatsSnapshot;
export interface FaultRule {
  route?: string;
  status?: 429 | 500 | 502 | 503;
  reset?: boolean;
  garble?: boolean;
  latency_ms?: number;
  rate: number;
  count?: number;
  after?: boolean;
}
export interface TestSandbox {
  sandbox: RunningSandbox;
  /** GET/POST to /papi/v1 with the bearer token; returns status and parsed JSON (or text when not JSON). */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  control: {
    reset(): Promise<void>;
    stats(): Promise<SandboxStats>;
    redeem(giftUuid: string, brandCode?: string): Promise<any>;
    bounce(giftUuid: string, permanent: boolean): Promise<any>;
    expire(giftUuid: string): Promise<any>;
    topUp(currency: string, amountInCents: number): Promise<any>;
    advanceClock(ms: number): Promise<any>;
    fault(rule: FaultRule): Promise<void>;
    clearFaults(): Promise<void>;
    /** The capacity fault: above per_second (burst at once) every request is answered 429; clearFaults lifts it. */
    capacity(setting: { per_second: number; burst?: number }): Promise<void>;
  };
  close(): Promise<void>;
}

async function readBody(res: Response): Promise<any> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export async function startTestSandbox(opts?: SandboxOptions): Promise<TestSandbox> {
  const sandbox = await startSandbox(opts);

  async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(sandbox.baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${sandbox.token}`,
        'accept-encoding': 'identity',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await readBody(res), headers: res.headers };
  }

  /** Control calls must succeed: a refusal is a broken test, so it throws with the sandbox's message. */
  async function control(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${sandbox.origin}/__sandbox${path}`, {
      method,
      headers: body !== undefined ? { 'content-type': 'application/json' } : {},
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const parsed = await readBody(res);
    if (res.status !== 200) {
      throw new Error(`sandbox control ${method} ${path} answered ${res.status}: ${JSON.stringify(parsed)}`);
    }
    return parsed;
  }

  return {
    sandbox,
    api,
    control: {
      reset: async () => {
        await control('POST', '/reset');
      },
      stats: () => control('GET', '/stats'),
      redeem: (uuid, brandCode) => control('POST', `/gifts/${encodeURIComponent(uuid)}/redeem`, brandCode ? { brand_code: brandCode } : {}),
      bounce: (uuid, permanent) => control('POST', `/gifts/${encodeURIComponent(uuid)}/bounce`, { permanent }),
      expire: (uuid) => control('POST', `/gifts/${encodeURIComponent(uuid)}/expire`),
      topUp: (currency, amountInCents) => control('POST', '/funds', { currency, amount_in_cents: amountInCents }),
      advanceClock: (ms) => control('POST', '/clock', { advance_ms: ms }),
      fault: async (rule) => {
        await control('POST', '/faults', rule);
      },
      clearFaults: async () => {
        await control('DELETE', '/faults');
      },
      capacity: async (setting) => {
        await control('POST', '/capacity', setting);
      },
    },
    close: () => sandbox.close(),
  };
}
