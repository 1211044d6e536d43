import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { freshnessOf, useCacheFreshness } from '../cache/use-cache-freshness.js';
import type { GatewayContext, RequestInfo } from '../graph/context.js';
import { graphiqlEnabled, type ProcessSettings } from '../ops/config.js';
import { redactingMaskError } from './error-masking.js';
import { createGraphiqlPage, GRAPHIQL_OPTIONS } from './graphiql-page.js';
import type { Logger } from '../ops/logger.js';
import type { GatewayMetrics } from '../ops/metrics.js';
import { reportUnexpectedErrors } from '../ops/report-unexpected-errors.js';
import { useCompiledExecution } from '../ops/use-compiled-execution.js';
import { useOperationLog } from '../ops/use-operation-log.js';
import { useOperationMetrics } from '../ops/use-operation-metrics.js';
import { useOperationTracing } from '../ops/use-operation-tracing.js';
import { requestIdOf, useRequestId } from '../ops/use-request-id.js';
import { yogaLogger } from '../ops/yoga-logger.js';
import type { Redactor } from '../redaction/redaction.js';
import { schema } from '../schema/index.js';
import { isCallerContext } from '../security/caller-context.js';
import type { Security } from '../security/security.js';
import { useIncrementalDelivery } from './use-incremental-delivery.js';
import { useLiveQueries } from './use-live-queries.js';
import type { LiveQueries } from '../live/live-queries.js';
import { useResponseHints } from './use-response-hints.js';
import { useResponseRedaction } from './use-response-redaction.js';
import { useWritePriority } from './use-write-priority.js';
import { useScopeCacheRelease } from './use-scope-cache-release.js';
import { tracingEnabled, type TelemetrySettings } from '../telemetry/config.js';

// The gateway's yoga: /graphql over HTTP and SSE, and the envelop instance WebSocket and webhook operations run
// through too (run-as-caller.ts). Its plugin list is the request path, in order: the probe that carries no key, the access
// pipeline (security.ts), then what observes and executes an admitted operation.

export type GatewayYoga = YogaServerInstance<Record<string, unknown>, GatewayContext>;

export interface GatewayYogaOptions {
  config: Pick<ProcessSettings, 'GRAPHIQL' | 'NODE_ENV' | 'COMPILE_AFTER_RUNS'> & TelemetrySettings;
  security: Security;
  /** /ready (readiness.ts). */
  readiness: Plugin;
  /** A fresh context per operation (context.ts). */
  newContext(request: RequestInfo): GatewayContext;
  redactor: Redactor;
  logger: Logger;
  metrics: GatewayMetrics;
  /** `@live` queries' shared resolutions (live/live-queries.ts). */
  liveQueries: LiveQueries;
}

export function createGatewayYoga({
  config,
  security,
  readiness,
  newContext,
  redactor,
  logger,
  metrics,
  liveQueries,
}: GatewayYogaOptions): GatewayYoga {
  const graphiqlPage = createGraphiqlPage();
  return createYoga<Record<string, unknown>, GatewayContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    batching: false,
    // The access pipeline's useBodyLimit bounds bodies by their Content-Length (security/use-body-limit.ts).
    maxRequestBodySize: false,
    graphiql: graphiqlEnabled(config) ? GRAPHIQL_OPTIONS : false,
    renderGraphiQL: graphiqlPage.render,
    maskedErrors: { maskError: reportUnexpectedErrors(redactingMaskError(redactor.redact), logger) },
    logging: yogaLogger(logger),
    cors: security.cors,
    plugins: [
      readiness,
      ...security.plugins,
      useRequestId({ refuse: redactor.contains }),
      // Before redaction: a hint quotes what the caller sent, and redaction must see it.
      useResponseHints(),
      useResponseRedaction(redactor.redact),
      useOperationLog({ logger }),
      useOperationMetrics({ registry: metrics.registry }),
      useCacheFreshness(),
      useWritePriority(),
      useScopeCacheRelease(),
      graphiqlPage.plugin,
      // @defer and @stream (declared in schema/incremental-delivery.ts), answered as multipart/mixed or SSE.
      ...useIncrementalDelivery(),
      useCompiledExecution({ logger, interpretedRuns: config.COMPILE_AFTER_RUNS }),
      // After the execution is chosen: each resolution of a live query runs it.
      useLiveQueries(liveQueries),
      // Last: the operation span wraps the execution the plugins above chose (ops/use-operation-tracing.ts).
      ...(tracingEnabled(config) ? [useOperationTracing(redactor.redact)] : []),
    ],
    context: (initial) =>
      newContext({
        requestId: requestIdOf(initial),
        ...(isCallerContext(initial)
          ? { caller: initial.caller }
          : { signal: initial.request.signal, caller: security.callerOf(initial.request), freshness: freshnessOf(initial.request) }),
      }),
  });
}
