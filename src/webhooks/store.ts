// What webhooks keep: endpoints, each endpoint's pending deliveries in order, and a bounded log of recent
// deliveries with their attempts. Behind this interface so that cluster mode can keep them in Redis while the
// delivery loop stays as it is; memory-store.ts is the single-process implementation.

/**
 * Who registered an endpoint: its subscription runs as them, with their scopes. The access pipeline's Caller
 * (security/scopes.ts) minus its expiry, kept as plain data so a store can serialize it; webhooks/ states it
 * here since it may not import security/.
 */
export interface Registrant {
  name: string;
  scopes: readonly string[];
  kind?: 'key' | 'token';
  subject?: string;
  client?: string | null;
  /** A token's issuer (absent for keys). */
  issuer?: string;
  trustedOnly?: boolean;
}

/**
 * Who owns what a registrant registers (the endpoint cap counts per owner): a key's name, or a token's subject
 * at its issuer, since two issuers may both give out one subject (AUTH_JWT_ISSUERS) and the same subject at
 * another issuer must not see, change or rotate the secret of these endpoints. A token's owner keeps the form
 * `token:<subject> <issuer>` that endpoints already stored in Redis carry.
 */
export function ownerOf(registrant: Pick<Registrant, 'name' | 'kind' | 'subject' | 'issuer'>): string {
  const { kind, subject, issuer } = registrant;
  return kind === 'token' && subject !== undefined && issuer !== undefined ? `token:${subject} ${issuer}` : registrant.name;
}

export interface WebhookEndpoint {
  id: string;
  /** ownerOf(registrant): only they see and change the endpoint, and the cap counts under it. */
  owner: string;
  registrant: Registrant;
  url: string;
  description: string | null;
  /** The subscription document as registered. */
  subscription: string;
  variables: Record<string, unknown> | null;
  /** Its root field, the `type` of every payload. */
  type: string;
  secret: string;
  /** After a rotation, the secret it replaced and until when (epoch ms) it still signs. */
  previousSecret: { secret: string; until: number } | null;
  enabled: boolean;
  /** Why the gateway disabled the endpoint (null when it is enabled, or was disabled by its owner). */
  disabledReason: string | null;
  createdAt: number;
  /** Cursor of the newest event taken from the subscription: where it resumes. */
  position: string | null;
  /** The subscription completed (its order became final): no event will follow. */
  completed: boolean;
  /** Grows with every replay: a replica whose worker started from an older one starts again from `position`. */
  generation: number;
}

/** A delivery the receiver has not accepted yet stays PENDING, also while its endpoint is disabled. */
export type DeliveryStatus = 'PENDING' | 'DELIVERED';

export interface AttemptRecord {
  at: number;
  /** The receiver's HTTP status; null when none came (timeout, connection, refused address). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface Delivery {
  /** The webhook-id: the same for every attempt. */
  id: string;
  endpointId: string;
  type: string;
  cursor: string;
  /** The body's `timestamp`: when the gateway took the event from its log (ISO). */
  timestamp: string;
  body: string;
  /** Epoch ms the event was taken from the log: change-to-delivery latency counts from here. */
  seenAt: number;
  /** Epoch ms of the first attempt: the retry window counts from here. */
  firstAttemptAt: number | null;
  status: DeliveryStatus;
  attempts: AttemptRecord[];
}

export interface DeliveryPage {
  items: Delivery[];
  total: number;
}

export interface WebhookStore {
  /** Whether endpoints and pending deliveries survive a restart. */
  readonly durable: boolean;
  /**
   * Stores a new endpoint unless its owner already has `maxPerOwner`, in one step: registrations racing on any
   * replica cannot pass the cap together. Refused: how many the owner has.
   */
  insert(endpoint: WebhookEndpoint, maxPerOwner: number): Promise<{ inserted: true } | { inserted: false; owned: number }>;
  get(id: string): Promise<WebhookEndpoint | null>;
  byOwner(owner: string): Promise<WebhookEndpoint[]>;
  /** Every endpoint, whoever owns it: the replicas share their deliveries out by lease (delivery-supervisor.ts). */
  all(): Promise<WebhookEndpoint[]>;
  /** Changes some fields of the endpoint; null when it no longer exists. */
  update(id: string, changes: Partial<Omit<WebhookEndpoint, 'id' | 'owner'>>): Promise<WebhookEndpoint | null>;
  /** The endpoint, its pending deliveries and its log. */
  remove(id: string): Promise<void>;
  /** Appends a delivery to the endpoint's queue (status PENDING). */
  enqueue(delivery: Delivery): Promise<void>;
  /** The oldest pending delivery of the endpoint: the only one being attempted. */
  head(endpointId: string): Promise<Delivery | null>;
  /** How many deliveries wait, and since when the oldest does (epoch ms it was taken from the log). */
  backlog(endpointId: string): Promise<{ pending: number; oldestSeenAt: number | null }>;
  /** Records an attempt of a pending delivery, and its new status (a DELIVERED one leaves the queue). */
  recordAttempt(endpointId: string, deliveryId: string, attempt: AttemptRecord, status: DeliveryStatus): Promise<void>;
  /** Drops every pending delivery of the endpoint (a replay starts its queue again). */
  clearPending(endpointId: string): Promise<void>;
  /** Recent deliveries, newest first. */
  deliveries(endpointId: string, offset: number, limit: number): Promise<DeliveryPage>;
}
