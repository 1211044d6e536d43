import { z } from 'zod';
import { configArea, count, documented, positiveMs, type AreaSettings } from '../shared/config-area.js';

// The webhooks area's environment variables (subscriptions delivered as signed HTTP callbacks), composed by
// src/config.ts. Defaults follow the Standard Webhooks platforms: a receiver gets ten seconds to answer, and a
// failing one is retried for a day before its endpoint is disabled.

/** "a.example, 10.1.2.3" → ["a.example", "10.1.2.3"]: exact hosts or addresses, compared as written. */
const hostList = z.string().transform((text) =>
  text
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== ''),
);

const PORT_RULE = 'each must be a port number from 1 to 65535';

/** "8443, 9000" → [8443, 9000]. */
const portList = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((port) => port.trim())
      .filter((port) => port !== ''),
  )
  .pipe(
    z
      .array(
        z
          .string()
          .regex(/^\d{1,5}$/, PORT_RULE)
          .transform(Number)
          .pipe(z.number().min(1, PORT_RULE).max(65_535, PORT_RULE)),
      )
      .min(1, 'name at least one port'),
  );

export const webhooksArea = configArea({
  title: 'Webhooks',
  variables: {
    WEBHOOK_MAX_ENDPOINTS_PER_KEY: documented(count.default(25), {
      description: 'webhook endpoints one API key, or one token subject at its issuer, may register (held under concurrency too)',
    }),
    WEBHOOK_TIMEOUT_MS: documented(positiveMs.default(10_000), {
      description: 'how long one delivery attempt waits for the receiver to answer before it counts as failed and is retried',
    }),
    WEBHOOK_RETRY_BASE_MS: documented(positiveMs.default(5_000), {
      description: 'backoff base of failed deliveries: the n-th retry waits up to base × 2^(n-1), with jitter',
    }),
    WEBHOOK_RETRY_FOR_MS: documented(positiveMs.default(86_400_000), {
      description: 'how long an event is retried before its endpoint is disabled (with the reason readable in the API)',
    }),
    WEBHOOK_ALLOWED_HOSTS: documented(hostList.optional(), {
      description:
        'comma-separated hosts or addresses exempt from the address policy (loopback, private, link-local… are refused otherwise), for tests and in-cluster receivers; exact matches only. Webhook URLs must be `https` in production',
      unsetMeans: 'none: public addresses only',
    }),
    WEBHOOK_ALLOWED_PORTS: documented(portList.optional(), {
      description:
        'comma-separated ports webhook URLs may name beside 443 and 80 (other ports reach other services: SMTP, SSH, Redis…). A host listed in `WEBHOOK_ALLOWED_HOSTS`, or a name resolving only to listed addresses, may use any port',
      unsetMeans: '443 and 80 only',
    }),
  },
  rules({ values }) {
    const { WEBHOOK_RETRY_BASE_MS: base, WEBHOOK_RETRY_FOR_MS: window } = values;
    if (base !== undefined && window !== undefined && window < base) {
      return [`WEBHOOK_RETRY_FOR_MS must be at least WEBHOOK_RETRY_BASE_MS (${base}), or no retry is ever made`];
    }
    return [];
  },
});

/** Whether endpoints must use https: everywhere but development and tests, where loopback receivers speak http. */
export const webhooksRequireHttps = (nodeEnv: string): boolean => nodeEnv === 'production';

export type WebhooksSettings = AreaSettings<typeof webhooksArea>;
