// What a handler can reach: the current state (replaced wholesale on reset), the request counters, the fault
// rules and the settings the sandbox was started with.
import type { Currency } from './catalog.js';
import type { Capacity } from './capacity.js';
import type { FaultSet } from './faults.js';
import type { SandboxState } from './state.js';
import type { SandboxStats } from './stats.js';

export interface SandboxSettings {
  token: string;
  latencyMs: number;
  balances: Record<Currency, number>;
}

export interface SandboxContext {
  state: SandboxState;
  readonly stats: SandboxStats;
  readonly faults: FaultSet;
  /** The capacity fault: a token bucket above which every request is answered 429. */
  readonly capacity: Capacity;
  readonly settings: SandboxSettings;
}

export interface HandlerInput {
  ctx: SandboxContext;
  params: Record<string, string>;
  /** The raw query string without `?`; handlers parse it with `Query` so bad values become 422s. */
  search: string;
  /** Parsed JSON body, or undefined when the request had none. */
  body: unknown;
  /** `http://host:port` as the client addressed the sandbox, for answers that show full URLs. */
  origin: string;
}

export interface Answer {
  status?: number;
  /** A value to serialise, or `raw` JSON text (an idempotent replay answers the stored text byte for byte). */
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

export type Handler = (input: HandlerInput) => Answer;

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to the mount point, find-my-way syntax, e.g. `/gifts/:uuid`. */
  path: string;
  handler: Handler;
  /** Control routes describe themselves for the index at GET /__sandbox/: what they do and a sample body. */
  doc?: { does: string; example?: unknown };
}

/** The key of a route in stats and fault rules, e.g. `GET /gifts/:uuid`. */
export const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;
