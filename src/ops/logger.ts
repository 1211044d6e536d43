import { hostname } from 'node:os';
import pino, { type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import type { Config } from '../config.js';
import { formsOf } from '../redaction.js';

// Structured JSON logs, one object per line on stdout. Secrets are kept out twice: pino `redact` blanks the
// fields that carry them (headers, tokens, keys), and every finished line is scrubbed of the secret strings
// themselves and of anything after "Bearer", so a token that slipped into a message or an error's stack
// still never reaches the output.

export type { Logger } from 'pino';

/** Where log lines go; anything with a `write(line)` (tests pass a collector). */
export type LogDestination = Pick<DestinationStream, 'write'>;

export interface LoggerOptions {
  level: LevelWithSilent;
  /**
   * Exact strings that must never appear in a line (the upstream token, gateway API keys). Live: strings added
   * after the logger was created are scrubbed too, so the embedded sandbox's token can join once known.
   */
  secrets?: Set<string>;
  /** Default: stdout, written synchronously so the last lines before `process.exit` are not lost. */
  destination?: LogDestination;
}

const CENSOR = '[redacted]';

/** Fields that hold credentials, wherever they appear in a logged object (up to two levels down). */
const REDACTED_FIELDS = ['authorization', 'cookie', 'token', 'apiKey', 'password', 'secret'];
const REDACTED_PATHS = REDACTED_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

const BEARER = /(bearer\s+)[^\s"\\]+/gi;

/** LOG_LEVEL when set; otherwise info, and silent under NODE_ENV=test so test output stays readable. */
export function logLevel(config: Pick<Config, 'LOG_LEVEL' | 'NODE_ENV'>): LevelWithSilent {
  return config.LOG_LEVEL ?? (config.NODE_ENV === 'test' ? 'silent' : 'info');
}

function scrubber(secrets: Set<string>, out: LogDestination): LogDestination {
  // Whole encoded forms only (JSON-escaped, base64, percent-encoded): cheap enough for every line. Upstream
  // text, where cut-short copies come from, is already redacted more thoroughly before it is logged.
  const forms = new Map<string, string[]>();
  return {
    write(line: string) {
      let clean = line.replace(BEARER, `$1${CENSOR}`);
      for (const secret of secrets) {
        if (!secret) continue;
        let known = forms.get(secret);
        if (!known) forms.set(secret, (known = formsOf(secret)));
        for (const form of known) clean = clean.replaceAll(form, CENSOR);
      }
      return out.write(clean);
    },
  };
}

export function createLogger({ level, secrets = new Set(), destination }: LoggerOptions): Logger {
  const out = destination ?? pino.destination({ dest: 1, sync: true });
  return pino(
    {
      level,
      base: { service: 'reward-gateway', pid: process.pid, hostname: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names rather than numbers: readable by people and understood by the usual log shippers.
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: CENSOR },
    },
    scrubber(secrets, out),
  );
}
