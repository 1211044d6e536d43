// Starts one in-process sandbox of the reward API. Each call owns its state, so tests can run several at once.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { CURRENCIES, type Currency } from './catalog.js';
import type { SandboxContext } from './context.js';
import { controlRoutes } from './control.js';
import { Capacity } from './capacity.js';
import { FaultSet } from './faults.js';
import { API_ROUTE_KEYS, API_ROUTES } from './routes.js';
import { API_PREFIX, createSandboxServer } from './server.js';
import { createState } from './state.js';
import { SandboxStats } from './stats.js';

export interface SandboxOptions {
  port?: number; // 0 = ephemeral; default 0
  host?: string; // default '127.0.0.1'
  token?: string; // default: a random token
  latencyMs?: number; // fixed delay before every /papi/v1 answer, default 0
  balances?: Partial<Record<'USD' | 'CAD' | 'AUD', number>>; // starting available cents, default 1_000_000 each
}

export interface RunningSandbox {
  origin: string; // e.g. http://127.0.0.1:41234
  baseUrl: string; // origin + '/papi/v1'
  token: string;
  close(): Promise<void>; // closes the server and every open socket
}

/** Modest, so a test can exhaust it and see orders wait for funds. */
const DEFAULT_BALANCE_IN_CENTS = 1_000_000;

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const balances = {} as Record<Currency, number>;
  for (const c of CURRENCIES) balances[c] = opts.balances?.[c] ?? DEFAULT_BALANCE_IN_CENTS;
  const settings = { token: opts.token ?? randomBytes(24).toString('base64url'), latencyMs: opts.latencyMs ?? 0, balances };
  const ctx: SandboxContext = { state: createState(balances), stats: new SandboxStats(), faults: new FaultSet(), capacity: new Capacity(), settings };
  const { server, close } = createSandboxServer(ctx, API_ROUTES, controlRoutes(API_ROUTE_KEYS));

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { origin, baseUrl: origin + API_PREFIX, token: settings.token, close };
}
