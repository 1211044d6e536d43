import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import { CATALOGUE, type Failure, type GatewayCode, type ParamsOf } from './catalogue.js';

// Raising an error of the catalogue: the code picks the status, the retry hint and the message, so no module
// spells them. Request refusals carry `extensions.http` (yoga answers with its status and headers and strips
// it from the body; the WebSocket adapter strips it too). Errors of documents, operations and fields carry
// none: GraphQL over HTTP decides their status (200 beside data, 400 for a refused document), and a status on
// a field's error would turn a partial answer into a failed one. Built with graphql's own GraphQLError (which is
// all yoga's createGraphQLError does on graphql 16), so the upstream client and orders/ need not load yoga.

export interface DescribedFailure {
  code: GatewayCode;
  status: number;
  /** Retry-After and the entry's own headers; for request refusals. */
  headers: Record<string, string>;
  message: string;
  /** What the client reads: `code`, the entry's extensions, `retryAfterSeconds`. No `http`. */
  extensions: Record<string, unknown>;
}

/** Parameters are optional for the codes that take none. */
type ParamsArg<C extends GatewayCode> = Record<never, never> extends ParamsOf<C> ? [params?: ParamsOf<C>] : [params: ParamsOf<C>];

export function describeFailure<C extends GatewayCode>(code: C, ...[params]: ParamsArg<C>): DescribedFailure {
  const entry = CATALOGUE[code] as unknown as Failure<ParamsOf<C>>;
  const p = (params ?? {}) as ParamsOf<C>;
  const retryAfterSeconds =
    entry.retryAfter.rule === 'fixed'
      ? entry.retryAfter.seconds
      : entry.retryAfter.rule === 'computed'
        ? (p as { retryAfterSeconds: number }).retryAfterSeconds
        : undefined;
  return {
    code,
    status: typeof entry.status === 'number' ? entry.status : entry.status.of(p),
    headers: {
      ...(typeof entry.headers === 'function' ? entry.headers(p) : entry.headers),
      ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
    },
    message: entry.message(p),
    extensions: {
      code,
      ...entry.extensions?.of(p),
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    },
  };
}

export interface RaiseOptions {
  /** Where in the document and the result it happened (a masked error keeps the original's). */
  at?: Pick<GraphQLErrorOptions, 'nodes' | 'source' | 'positions' | 'path'>;
  /**
   * Raised on a field although the code also refuses whole requests (RATE_LIMITED from the reward API): no
   * HTTP status, as the answer still carries data.
   */
  onField?: boolean;
}

type RaiseArgs<C extends GatewayCode> =
  Record<never, never> extends ParamsOf<C> ? [params?: ParamsOf<C>, options?: RaiseOptions] : [params: ParamsOf<C>, options?: RaiseOptions];

export function gatewayError<C extends GatewayCode>(code: C, ...[params, options = {}]: RaiseArgs<C>): GraphQLError {
  const failure = describeFailure(code, ...([params] as ParamsArg<C>));
  const http = CATALOGUE[code].surface === 'request' && !options.onField ? { http: { status: failure.status, headers: failure.headers } } : {};
  return new GraphQLError(failure.message, { ...options.at, extensions: { ...failure.extensions, ...http } });
}

/**
 * A note beside the data rather than an error: shaped like one (message, path, `extensions.code`) so a client
 * formats it as it does its errors, but sent in the response's `extensions.hints`, so the field's answer and
 * the client's error handling stay what they were (use-response-hints.ts puts it there).
 */
export interface Hint {
  message: string;
  path: readonly (string | number)[];
  extensions: Record<string, unknown>;
}

export function gatewayHint<C extends GatewayCode>(code: C, params: ParamsOf<C>, path: readonly (string | number)[]): Hint {
  const { message, extensions } = describeFailure(code, ...([params] as ParamsArg<C>));
  return { message, path, extensions };
}

/** A request refusal as the JSON body yoga would send, for answers written outside yoga (node:http). */
export function errorBody(failure: DescribedFailure): { errors: { message: string; extensions: Record<string, unknown> }[] } {
  return { errors: [{ message: failure.message, extensions: failure.extensions }] };
}
