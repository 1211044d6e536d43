import { hostname } from 'node:os';
import pino, { type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { createRedactor, REDACTED, type Redactor } from '../redaction/redaction.js';
import { traceLogFields } from '../telemetry/spans.js';
import type { ProcessSettings } from './config.js';

// Structured JSON logs, one object per line on stdout. Secrets are kept out twice: pino `redact` blanks the
// fields that carry them (headers, tokens, keys), and every finished line goes through the gateway's redactor
// (every configured secret, in any encoding: redaction.ts) and is scrubbed of anything after "Bearer" (a
// client's key the gateway does not know), so a secret that slipped into a message or an error's stack still
// never reaches the output.

export type { Logger } from 'pino';

/** Where log lines go; anything with a `write(line)` (tests pass a collector). */
export type LogDestination = Pick<DestinationStream, 'write'>;

export interface LoggerOptions {
  level: LevelWithSilent;
  /** The gateway's redactor (secrets added to it later are scrubbed too). Default: one with no secret. */
  redactor?: Redactor;
  /** Default: stdout, written synchronously so the last lines before `process.exit` are not lost. */
  destination?: LogDestination;
}

/** Fields that hold credentials, wherever they appear in a logged object (up to two levels down). */
const REDACTED_FIELDS = ['authorization', 'cookie', 'token', 'apiKey', 'password', 'secret'];
const REDACTED_PATHS = REDACTED_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

const BEARER = /(bearer\s+)[^\s"\\]+/gi;
/** Webhook signing secrets are per endpoint, never configured, so the redactor cannot know them: by their form. */
const WEBHOOK_SECRET = /(whsec_)[A-Za-z0-9+/=]+/g;

/** LOG_LEVEL when set; otherwise info, and silent under NODE_ENV=test so test output stays readable. */
export function logLevel(config: Pick<ProcessSettings, 'LOG_LEVEL' | 'NODE_ENV'>): LevelWithSilent {
  return config.LOG_LEVEL ?? (config.NODE_ENV === 'test' ? 'silent' : 'info');
}

function scrubber({ redact }: Redactor, out: LogDestination): LogDestination {
  return { write: (line: string) => out.write(redact(line.replace(BEARER, `$1${REDACTED}`).replace(WEBHOOK_SECRET, `$1${REDACTED}`))) };
}

export function createLogger({ level, redactor = createRedactor(), destination }: LoggerOptions): Logger {
  const out = destination ?? pino.destination({ dest: 1, sync: true });
  return pino(
    {
      level,
      base: { service: 'reward-gateway', pid: process.pid, hostname: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names rather than numbers: readable by people and understood by the usual log shippers.
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
      // trace_id and span_id of the span active where the line is written (none with tracing off).
      mixin: traceLogFields,
    },
    scrubber(redactor, out),
  );
}
