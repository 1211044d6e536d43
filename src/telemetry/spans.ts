import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  trace,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';

// What the gateway's own code says to tracing, on @opentelemetry/api alone. With no SDK registered (tracing
// off) the API is a no-op: getTracer returns a tracer whose spans record nothing, context.with just calls its
// function, and the checks below return before building any attribute, so none of this costs when off.
// Once the SDK registers (telemetry/start.ts), the tracer obtained here at load time starts real spans.

export const tracer = trace.getTracer('reward-gateway');

/** Whether the active context has a span that records: tracing is on and this trace is sampled. */
export function tracing(): boolean {
  return trace.getActiveSpan()?.isRecording() === true;
}

/** The active recording span, for events and attributes; undefined when tracing is off or not sampled. */
export function recordingSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
}

/** An event on the active span (a cache hit, a breaker decision); nothing when no span records. */
export function spanEvent(name: string, attributes?: () => Attributes): void {
  const span = recordingSpan();
  if (span) span.addEvent(name, attributes?.());
}

/** The active span's context, to link background work to what caused it; undefined when not traced. */
export function causeOfWork(): SpanContext | undefined {
  return recordingSpan()?.spanContext();
}

function ended<T>(span: Span, run: () => Promise<T>): Promise<T> {
  return run().then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      span.end();
      throw error;
    },
  );
}

/**
 * `run` inside a child span of the active one. The span is created only when the active span records:
 * untraced work (tracing off, or a trace not sampled) runs as is.
 */
export function inSpan<T>(name: string, attributes: () => Attributes, run: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracing()) return run(undefined);
  return tracer.startActiveSpan(name, { attributes: attributes() }, (span) => ended(span, () => run(span)));
}

/**
 * `run` in a span of its own, a child of the active one when there is one: for a unit of work an operator looks
 * up by name whoever called it (an MCP tool call, the parent of its operation's span). With tracing off the
 * API's tracer makes a span that records nothing.
 */
export function inNamedSpan<T>(name: string, attributes: Attributes, run: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, (span) => ended(span, () => run(span)));
}

/**
 * `run` as the root of a trace of its own (a poll, a delivery: work nobody waits on), linked to what caused
 * it. Background work has no active span to ask, so this one asks the tracer: the no-op tracer of tracing off
 * gives a span that does not record, and the links and attributes are then not even built.
 */
export function inRootSpan<T>(
  name: string,
  cause: () => { links?: (SpanContext | undefined)[]; attributes?: Attributes },
  run: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, { root: true, kind: SpanKind.INTERNAL });
  if (!span.isRecording()) return run(span);
  const { links = [], attributes = {} } = cause();
  for (const link of links) if (link) span.addLink({ context: link } satisfies Link);
  span.setAttributes(attributes);
  return context.with(trace.setSpan(ROOT_CONTEXT, span), () => ended(span, () => run(span)));
}

/**
 * `start` outside any trace: for work that outlives the request that began it (a key's poller), whose timers
 * would otherwise carry that request's context, and keep its spans, for as long as they run.
 */
export function detached<T>(start: () => T): T {
  return context.with(ROOT_CONTEXT, start);
}

/**
 * A root span, started and not made active, for synchronous background work (the caller ends it); undefined
 * when tracing is off, so nothing is built.
 */
export function rootSpan(name: string, cause: () => { links?: (SpanContext | undefined)[]; attributes?: Attributes }): Span | undefined {
  const span = tracer.startSpan(name, { root: true, kind: SpanKind.INTERNAL });
  if (!span.isRecording()) return undefined;
  const { links = [], attributes = {} } = cause();
  for (const link of links) if (link) span.addLink({ context: link } satisfies Link);
  span.setAttributes(attributes);
  return span;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The active recording span as a W3C traceparent, for work that continues elsewhere (a live event written to
 * the shared log, delivered by whichever replica reads it); undefined when not traced.
 */
export function currentTraceparent(): string | undefined {
  const span = recordingSpan();
  if (!span) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/** The span context a traceparent names, to link to it; undefined for anything else. */
export function spanContextOf(traceparent: string | undefined): SpanContext | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const spanContext: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * Runs `run` as a continuation of the caller's trace (a W3C traceparent it sent), or as it is when there is
 * none or the value is not a valid traceparent. For operations no HTTP request carries: a request's server
 * span (server-span.ts) continues its caller's itself. With tracing off, context.with only calls `run`.
 */
export function continuingTrace<T>(traceparent: string | undefined, run: () => T): T {
  const caller = spanContextOf(traceparent);
  return caller ? context.with(trace.setSpanContext(ROOT_CONTEXT, caller), run) : run();
}

/** Where the upstream client's requests go, fixed per client: the client span's server attributes. */
export interface UpstreamServer {
  address: string;
  port: number;
}

/**
 * The client span of one upstream attempt, a child of the active span when that one records (an operation's,
 * a loader batch's, a poll's); undefined otherwise, and then nothing is built. Named `{method} {url.template}`
 * with the HTTP client attributes of the semantic conventions; `http.request.resend_count` on retries only, as
 * they ask. `url` is only called for a span. The transport ends it (endClientSpan) and sends its traceparent
 * (traceHeaders) with the request it describes.
 */
export function startClientSpan(method: string, route: string, attempt: number, server: UpstreamServer, url: () => string): Span | undefined {
  const active = context.active();
  if (!trace.getSpan(active)?.isRecording()) return undefined;
  const template = urlTemplate(route);
  const attributes: Attributes = {
    'http.request.method': method,
    'url.full': url(),
    'url.template': template,
    'server.address': server.address,
    'server.port': server.port,
  };
  if (attempt > 1) attributes['http.request.resend_count'] = attempt - 1;
  return tracer.startSpan(`${method} ${template}`, { kind: SpanKind.CLIENT, attributes }, active);
}

/** `headers` with the propagator's fields for `span` (W3C `traceparent`, and baggage when there is some): a new object. */
export function traceHeaders(span: Span, headers: Record<string, string>): Record<string, string> {
  const carrier = { ...headers };
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  return carrier;
}

/**
 * Ends a client span: with the answer's status (an error from 400 up, as the conventions ask of a client), or
 * with no answer and `errorType` (a network error's code, `timeout`, `aborted`). No message, no exception
 * event: an error's text is the upstream's or the network stack's, and spans carry names and codes only.
 */
export function endClientSpan(span: Span, status: number, errorType?: string): void {
  if (status > 0) span.setAttribute('http.response.status_code', status);
  const error = errorType ?? (status >= 400 ? String(status) : undefined);
  if (error !== undefined) {
    span.setAttribute('error.type', error);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

const templates = new Map<string, string>();

/** "GET /campaign/:id" → "/campaign/{id}" (the routes are a fixed set, so the answers are kept). */
export function urlTemplate(route: string): string {
  let template = templates.get(route);
  if (template === undefined) {
    template = route.slice(route.indexOf(' ') + 1).replace(/:(\w+)/g, '{$1}');
    templates.set(route, template);
  }
  return template;
}

/**
 * `trace_id` and `span_id` of the active span, for every log line written inside a traced operation (a pino
 * mixin: pino merges the line's fields into the object returned, so it is a new one each time).
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const spanContext = span.spanContext();
  // A trace that is not sampled still has ids: its lines can be matched with the caller's own.
  return isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}
