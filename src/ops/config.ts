import { z } from 'zod';
import { configArea, count, documented, flag, nonNegativeMs, port, positiveMs, type AreaSettings } from '../shared/config-area.js';

// The environment variables of the process and its connections (ports, logs, shutdown, execution, the limits
// of HTTP and WebSocket clients), composed by src/config.ts. Two areas, so docs/configuration.md shows them apart.

const HEAP_TRIM_RULE =
  'must be 0 (off) or a whole number of milliseconds from 5000 to 2147483647: V8 gives the young generation back only after 5 s of quiet';
const heapTrimAfter = z.coerce
  .number({ error: HEAP_TRIM_RULE })
  .int({ error: HEAP_TRIM_RULE })
  .refine((ms) => ms === 0 || (ms >= 5_000 && ms <= 2_147_483_647), { error: HEAP_TRIM_RULE });

export const processArea = configArea({
  title: 'Process',
  variables: {
    NODE_ENV: documented(z.enum(['development', 'production', 'test']).default('development'), {
      description: '`production` turns GraphiQL and introspection off unless set, and requires `REWARD_API_URL`, its token and API keys',
    }),
    PORT: documented(port.default(4000), { description: 'HTTP port: GraphQL (HTTP, SSE, WebSocket), probes and metrics' }),
    HOST: documented(z.string().min(1).default('127.0.0.1'), {
      description: 'interface to bind: loopback unless set (production deployments set 0.0.0.0 explicitly)',
    }),
    SANDBOX_PORT: documented(port.default(4010), {
      description: 'port of the embedded sandbox, started only without `REWARD_API_URL`; must differ from `PORT`',
    }),
    LOG_LEVEL: documented(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(), {
      description: 'pino level of the JSON log lines on stdout',
      unsetMeans: 'info (silent under `NODE_ENV=test`)',
    }),
    GRAPHIQL: documented(flag.optional(), { description: 'serve GraphiQL on a browser `GET /graphql`', unsetMeans: 'on outside production' }),
    READY_CACHE_MS: documented(nonNegativeMs.default(5_000), {
      description: 'how often at most `/ready` pings the upstream in the background to report it (never a reason to answer 503)',
    }),
    COMPILE_AFTER_RUNS: documented(z.union([z.literal('never').transform(() => Infinity), z.coerce.number().int().min(0)]).default(1), {
      description:
        'executions of a document before it runs compiled by graphql-jit: 0 compiles it on its first, `never` runs every document interpreted by graphql-js (a switch should graphql-jit misbehave)',
    }),
    HEAP_TRIM_AFTER_MS: documented(heapTrimAfter.default(60_000), {
      description:
        "how long the gateway must allocate next to nothing (no collection by V8, and the young generation growing under 1,000 bytes a millisecond, V8's threshold for low allocation, read when requests and upstream calls start; probes, scrapes and polls that find nothing allocate less) before it gives back the memory a load left: a young collection, in which V8 shrinks its young generation, then one full collection in a second in which no request or upstream call starts, which frees what the load promoted (needs node's `--expose-gc`, which `npm run start:prod` passes). Not sooner: a burst that finds the young generation shrunk pays to grow it again; 0: off",
    }),
    SHUTDOWN_READY_DELAY_MS: documented(nonNegativeMs.default(0), {
      description:
        'on SIGTERM/SIGINT, how long the gateway keeps serving with `/ready` at 503 before it stops accepting, so a load balancer stops sending first; 0: stop accepting at once',
    }),
    SHUTDOWN_DEADLINE_MS: documented(positiveMs.default(10_000), {
      description: 'then, how long in-flight operations may take before their connections are cut',
    }),
  },
  rules({ values, embeddedSandbox }) {
    const { PORT: gateway, SANDBOX_PORT: sandbox } = values;
    return embeddedSandbox && gateway !== undefined && gateway !== 0 && gateway === sandbox
      ? [`SANDBOX_PORT must differ from PORT (both ${gateway}): the embedded sandbox needs its own port`]
      : [];
  },
});

export type ProcessSettings = AreaSettings<typeof processArea>;

/** Whether GraphiQL is served: on by default outside production. */
export function graphiqlEnabled(settings: Pick<ProcessSettings, 'GRAPHIQL' | 'NODE_ENV'>): boolean {
  return settings.GRAPHIQL ?? settings.NODE_ENV !== 'production';
}

// Caps on what one client can make a replica hold; each refusal names its variable, and the defaults are above
// what a large internal tool uses (docs/operations.md).
export const connectionsArea = configArea({
  title: 'HTTP and WebSocket connections',
  variables: {
    HTTP_HEADERS_TIMEOUT_MS: documented(positiveMs.default(10_000), {
      description: "time a client has to send a request's headers (408 and closed after it): slowloris holds nothing",
    }),
    HTTP_REQUEST_TIMEOUT_MS: documented(positiveMs.default(30_000), {
      description: 'time a client has to send a whole request, body included (408)',
    }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: documented(positiveMs.default(5_000), {
      description: "how long an idle keep-alive connection stays open; set it above your load balancer's idle timeout",
    }),
    HTTP_MAX_CONNECTIONS: documented(count.default(10_000), {
      description: 'TCP connections one replica holds (HTTP, SSE and WebSocket together); further ones are closed at once',
    }),
    WS_MAX_SUBSCRIPTIONS_PER_SOCKET: documented(count.default(200), {
      description: 'operations open at once on one WebSocket, subscriptions and running queries (`SUBSCRIPTIONS_PER_SOCKET_EXCEEDED`)',
    }),
    WS_MAX_CONNECTIONS_PER_KEY: documented(count.default(1_000), {
      description: 'WebSockets one API key may hold open on one replica (close 4430)',
    }),
    WS_MAX_PAYLOAD_BYTES: documented(count.default(100_000), { description: 'largest WebSocket message accepted (close 1009)' }),
    WS_MAX_BUFFERED_BYTES: documented(count.default(4_194_304), {
      description: 'output waiting for a WebSocket client that does not read it, beyond which the socket is closed (4413)',
    }),
  },
  rules({ values }) {
    const { HTTP_HEADERS_TIMEOUT_MS: headers, HTTP_REQUEST_TIMEOUT_MS: request } = values;
    return headers !== undefined && request !== undefined && headers > request
      ? [`HTTP_HEADERS_TIMEOUT_MS must be at most HTTP_REQUEST_TIMEOUT_MS (${request}): the headers are part of the request`]
      : [];
  },
});

export type ConnectionsSettings = AreaSettings<typeof connectionsArea>;
