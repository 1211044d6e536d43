import { z } from 'zod';
import { configArea, documented, flag, type AreaSettings } from '../shared/config-area.js';

// The tracing area's environment variables, composed by src/config.ts: only the standard OTEL_* names, so a
// collector's usual wiring (an operator's, or an OpenTelemetry operator's injection) configures the gateway as
// it would any other service. The SDK reads them itself (and every other OTEL_* variable it knows, such as
// OTEL_BSP_SCHEDULE_DELAY); they are declared here so a wrong value stops the start with a clear line and the
// configuration table lists them. Tracing is on only when an endpoint is set and OTEL_SDK_DISABLED is not true.

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

export const telemetryArea = configArea({
  title: 'Tracing (OpenTelemetry)',
  variables: {
    OTEL_EXPORTER_OTLP_ENDPOINT: documented(z.url({ protocol: /^https?$/ }).optional(), {
      description:
        'base URL of an OTLP/HTTP receiver (a collector), e.g. `http://otel-collector:4318`; spans go to `<endpoint>/v1/traces`. Setting it (or the next variable) turns tracing on',
      unsetMeans: 'no tracing: the SDK is not even loaded',
    }),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: documented(z.url({ protocol: /^https?$/ }).optional(), {
      description: 'the full URL spans are posted to, used as is (no `/v1/traces` appended); wins over `OTEL_EXPORTER_OTLP_ENDPOINT`',
      unsetMeans: '`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`',
    }),
    OTEL_EXPORTER_OTLP_PROTOCOL: documented(z.enum(['http/protobuf', 'http/json']).default('http/protobuf'), {
      description: 'how spans are encoded over OTLP/HTTP: `http/protobuf` or `http/json` (the gateway does not ship gRPC)',
    }),
    OTEL_SERVICE_NAME: documented(z.string().min(1).default('reward-gateway'), {
      description: 'the `service.name` of every span; wins over a `service.name` in `OTEL_RESOURCE_ATTRIBUTES`',
    }),
    OTEL_TRACES_SAMPLER: documented(z.enum(SAMPLERS).default('parentbased_always_on'), {
      description: `which operations are traced: ${SAMPLERS.map((s) => `\`${s}\``).join(', ')}; \`parentbased_*\` follows the caller's \`traceparent\` decision`,
    }),
    OTEL_TRACES_SAMPLER_ARG: documented(z.coerce.number().min(0).max(1).optional(), {
      description: 'the ratio the `*traceidratio` samplers keep, from 0 to 1',
      unsetMeans: '1 (every trace)',
    }),
    OTEL_RESOURCE_ATTRIBUTES: documented(z.string().optional(), {
      description: 'more resource attributes for every span, `key=value` pairs separated by commas (e.g. `deployment.environment.name=prod`)',
    }),
    OTEL_SDK_DISABLED: documented(flag.default(false), {
      description: '`true` turns tracing off even with an endpoint set',
    }),
  },
});

export type TelemetrySettings = AreaSettings<typeof telemetryArea>;

/** Whether the gateway traces: an endpoint is set and the SDK is not disabled. */
export function tracingEnabled(
  config: Pick<TelemetrySettings, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_SDK_DISABLED'>,
): boolean {
  return !config.OTEL_SDK_DISABLED && Boolean(config.OTEL_EXPORTER_OTLP_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
