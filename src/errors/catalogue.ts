// Every error code the gateway itself raises, with what a client may rely on: the HTTP status of a response
// it refuses, whether trying again can help, how long to wait, and the message (which names the fix). Modules
// raise these through gatewayError()/describeFailure() (gateway-error.ts) and never spell a code, a status or
// a retry hint themselves; docs/errors.md is printed from this table (`npm run docs:errors`).
//
// The reward API's own codes (ERROR_…, INFO_…) are not here: they are the upstream's vocabulary and reach
// clients only as `upstreamCode` or `UpstreamRejected.code`.

/** A problem with one input field, as orders/errors.ts reports it (the catalogue stays below every feature). */
interface InputIssue {
  path: readonly string[];
  message: string;
}

/**
 * Where an error shows, which decides the HTTP status of the answer carrying it:
 * - `request`: the HTTP request is refused before any GraphQL work; the answer has the entry's status.
 * - `document`: the document is refused while it is parsed or validated; GraphQL over HTTP answers 400
 *   (`application/graphql-response+json`), or 200 to a client that accepts only `application/json`.
 * - `operation`: a valid operation is refused before it runs; 200, with no data.
 * - `field`: a field of a running operation (or the start of a subscription) failed; 200, the rest of the
 *   data beside it.
 */
export type Surface = 'request' | 'document' | 'operation' | 'field';

export type RetryAfter =
  | { rule: 'none' }
  /** Always this many seconds. */
  | { rule: 'fixed'; seconds: number }
  /** Worked out per error (the raiser passes `retryAfterSeconds`); `from` says from what. */
  | { rule: 'computed'; from: string };

export interface Failure<P> {
  surface: Surface;
  /** HTTP status of the answer; some request refusals have one of several, picked from the parameters. */
  status: number | { values: readonly number[]; of: (params: P) => number };
  /** Whether sending the very same request again, later, can succeed. */
  retryable: boolean;
  retryAfter: RetryAfter;
  /** Response headers of a request refusal, besides Retry-After; some name what went wrong. */
  headers?: Readonly<Record<string, string>> | ((params: P) => Record<string, string>);
  /** When it happens (for docs/errors.md). */
  when: string;
  /** What the client sees; it names the fix. */
  message: (params: P) => string;
  /** Extensions besides `code` and `retryAfterSeconds`, and what each means. */
  extensions?: { of: (params: P) => Record<string, unknown>; fields: Readonly<Record<string, string>> };
  /** Parameters for docs/errors.md's sample messages (one per variant) and the catalogue's own test. */
  examples: readonly [P, ...P[]];
}

/** A catalogue entry whose parameters are inferred from its examples and message. */
function failure<P = Record<never, never>>(entry: Failure<P>): Failure<P> {
  return entry;
}

const NO_RETRY_AFTER: RetryAfter = { rule: 'none' };

/**
 * A write the reward API may have carried out although no success came back (a timeout or abort after it was
 * sent, a 5xx, an unreadable 200): retrying blindly could act twice, so the client is told to check first.
 */
const OUTCOME_UNKNOWN = 'The reward API did not confirm the outcome: the operation may have taken effect. Check before retrying.';

interface MayBeUnknownOutcome {
  /** A write cut short: the message says to check, and `extensions.retryable` is false. */
  outcomeUnknown?: boolean;
}
const unknownOutcomeExtensions = {
  of: (p: MayBeUnknownOutcome): Record<string, unknown> => (p.outcomeUnknown ? { retryable: false } : {}),
  fields: { retryable: 'false when a write may have taken effect (the message says to check before retrying)' },
};

type BadUserInput =
  | { reason: 'invalid-input'; issues: InputIssue[] }
  | { reason: 'page-size'; max: number; first: number }
  | { reason: 'foreign-cursor'; cursor: string }
  | { reason: 'unknown-region'; region: string; known: readonly string[] }
  | { reason: 'unknown-brand'; brandCode: string; suggestions: readonly string[] }
  | { reason: 'bad-reference'; what: string; problem: string }
  | { reason: 'resume-cursor'; problem: keyof typeof RESUME_CURSOR_PROBLEMS }
  | { reason: 'money-as-string' };

/** Why a subscription's `after` cannot be resumed from (live/cursor.ts). */
const RESUME_CURSOR_PROBLEMS = {
  'not-issued': '"after" is not a cursor this gateway issued.',
  'other-subscription': '"after" is a cursor of another subscription.',
  'past-end': '"after" is past the end of the event log: it is not a cursor this gateway issued.',
};

function badUserInputMessage(p: BadUserInput): string {
  switch (p.reason) {
    case 'invalid-input':
      return `Invalid input: ${p.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ')}`;
    case 'page-size':
      return `"first" must be between 0 and ${p.max}, got ${p.first}.`;
    case 'foreign-cursor':
      return `"after" is not a cursor this gateway issued: ${JSON.stringify(p.cursor)}; pass a cursor from this connection's edges or pageInfo.`;
    case 'unknown-region':
      return `Unknown region "${p.region}". Known regions: ${p.known.join(', ')}.`;
    case 'unknown-brand':
      return `${p.brandCode} is not a known brand${p.suggestions.length ? `; did you mean ${p.suggestions.join(' or ')}?` : ''}`;
    case 'bad-reference':
      return `Invalid ${p.what}: ${p.problem}.`;
    case 'resume-cursor':
      return `${RESUME_CURSOR_PROBLEMS[p.problem]} Resume from the cursor of an event of this subscription, or subscribe without "after".`;
    case 'money-as-string':
      return 'SafeInt takes whole cents as a JSON number, not a string: send 2500, not "2500".';
  }
}

/** graphql-armor's sentence ("Query depth limit of 12 exceeded, found 13.") and the limit it names. */
interface ArmorRefusal {
  detail: string;
  limit: number;
}
const limitExtension = { of: (p: { limit: number }) => ({ limit: p.limit }), fields: { limit: 'the limit in force' } };

/** Why a JWT access token was refused (identity/jwt-verifier.ts), as its 401 names it; never the token itself. */
const TOKEN_PROBLEMS = {
  expired: 'the token has expired',
  'not-yet-valid': 'the token is not valid yet (nbf in the future)',
  'issued-in-future': 'the token iat is in the future, beyond the clock skew allowed: the issuer clock is ahead',
  'wrong-audience': 'the token is for another audience',
  'unknown-issuer': 'the token is from an issuer this gateway does not trust',
  'bad-signature': 'the token signature is invalid',
  'unknown-key': 'the token is signed with a key the issuer does not publish',
  algorithm: 'the token algorithm is not accepted (only asymmetric signatures)',
  malformed: 'the token is malformed',
  'too-large': 'the token is over 8 KB',
  'issuer-unreachable': 'the issuer keys cannot be fetched',
  'no-subject': 'the token names no subject (sub, client_id or azp), so it cannot be told apart from other such tokens',
  'bad-subject': 'the token sub is not a string (RFC 7519: a case-sensitive string)',
};
export type TokenProblem = keyof typeof TOKEN_PROBLEMS;

export const CATALOGUE = {
  // Requests refused before any GraphQL work.
  ABSOLUTE_FORM_TARGET: failure({
    surface: 'request',
    status: 400,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    headers: { connection: 'close' },
    when: 'The request target is a full URL (`GET http://host/graphql`), as a proxy would receive; the connection is closed.',
    message: () => 'A full URL as the request target is not served (this is no proxy): send the path only, such as /graphql.',
    examples: [{}],
  }),
  ASTERISK_FORM_TARGET: failure({
    surface: 'request',
    status: 400,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    headers: { connection: 'close' },
    when: 'The request target is `*` (`OPTIONS * HTTP/1.1`); the connection is closed.',
    message: () => 'The request target "*" (as in OPTIONS *) is not served: send requests to a path such as /graphql.',
    examples: [{}],
  }),
  MALFORMED_HOST: failure({
    surface: 'request',
    status: 400,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    headers: { connection: 'close' },
    when: 'The `Host` header is not a name, an IPv4 address or a bracketed IPv6 address with an optional port up to 65535; the connection is closed.',
    message: () => 'The Host header is not a host name or IP address with an optional port: send the name or address the gateway is reached by.',
    examples: [{}],
  }),
  HOST_NOT_ALLOWED: failure({
    surface: 'request',
    status: 403,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'No API keys are configured (development mode) and the `Host` is not a loopback name: a page elsewhere may be rebinding its DNS name to this machine.',
    message: () =>
      'This gateway has no API keys configured and serves loopback host names only (localhost, 127.0.0.1, [::1]): ' +
      'use one of them, or configure GATEWAY_API_KEYS to serve other names.',
    examples: [{}],
  }),
  BAD_REQUEST: failure<{ status: 411 | 413; problem: string }>({
    surface: 'request',
    status: { values: [400, 411, 413], of: (p) => p.status },
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when:
      'The body cannot be read: a POST without `Content-Length` (411), a body over `MAX_BODY_BYTES` (413). yoga raises ' +
      'the same code, with 400, for a body that is not a GraphQL request: not JSON, or no query (that one is 200 to ' +
      '`application/json`).',
    message: (p) => p.problem,
    examples: [
      { status: 411, problem: 'POST bodies need a Content-Length header.' },
      { status: 413, problem: 'Request body too large: at most 100000 bytes (MAX_BODY_BYTES).' },
    ],
  }),
  UNAUTHENTICATED: failure<{ key?: 'missing' | 'malformed' | 'unknown' | 'placeholder' | 'tokens-only' }>({
    surface: 'request',
    status: 401,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    headers: { 'www-authenticate': 'Bearer' },
    when:
      'API keys are configured and the request carries none, an Authorization that is not `Bearer <key>`, or a key the gateway ' +
      'does not know; each gets its own message (with token issuers and no keys, one saying the gateway takes tokens only). In every mode, keyless development included, `Bearer undefined`, `Bearer null` ' +
      'or a `Bearer` with nothing after it: a client bug (a variable meant to hold the key holds none). Over WebSocket the socket ' +
      'is closed with 4403 and a reason saying the same.',
    message: (p) =>
      p.key === 'tokens-only'
        ? 'This gateway takes access tokens only: send Authorization: Bearer <token> with a token from its OpenID issuer. It has no API keys, and keyless development ends once AUTH_JWT_ISSUER (or AUTH_JWT_ISSUERS) is set.'
        : p.key === 'placeholder'
          ? 'The Authorization header is "Bearer undefined", "Bearer null" or an empty Bearer: the client variable meant to hold the key holds no key (a client bug). Set the key in the client; in keyless development, send no Authorization header at all.'
          : p.key === 'unknown'
            ? 'The API key sent is not one this gateway knows: check it for a typo, or for a key of another environment or one revoked, and send a current key as Authorization: Bearer <key>.'
            : p.key === 'malformed'
              ? 'The Authorization header is not "Bearer <key>": send the gateway API key as Authorization: Bearer <key>.'
              : 'Send a gateway API key: Authorization: Bearer <key> (over WebSocket: "authorization" in the connection_init payload).',
    examples: [{}, { key: 'malformed' }, { key: 'unknown' }, { key: 'placeholder' }, { key: 'tokens-only' }],
  }),
  INVALID_TOKEN: failure<{ problem: TokenProblem }>({
    surface: 'request',
    status: 401,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    headers: (p) => ({ 'www-authenticate': `Bearer error="invalid_token", error_description="${TOKEN_PROBLEMS[p.problem]}"` }),
    when: 'The bearer value is a JWT the gateway does not accept: expired, not yet valid or issued in the future, for another audience, from an issuer it does not trust, a bad or unknown signing key, an algorithm other than the asymmetric ones, over 8 KB, malformed, or naming no subject or one that is not a string. Over WebSocket the socket is closed with 4403.',
    message: (p) =>
      p.problem === 'issuer-unreachable'
        ? `The access token could not be checked: ${TOKEN_PROBLEMS[p.problem]}. This is not the token's fault: send it again later; if it lasts, the gateway's operators must restore its connection to the issuer.`
        : `The access token was refused: ${TOKEN_PROBLEMS[p.problem]}. Get a new token from the issuer.`,
    extensions: { of: (p) => ({ reason: p.problem }), fields: { reason: `why: ${Object.keys(TOKEN_PROBLEMS).join(', ')}` } },
    examples: [
      { problem: 'expired' },
      { problem: 'wrong-audience' },
      { problem: 'unknown-issuer' },
      { problem: 'bad-signature' },
      { problem: 'malformed' },
      { problem: 'issuer-unreachable' },
    ],
  }),
  RATE_LIMITED: failure<
    | { by: 'key'; apiKey: string; retryAfterSeconds: number }
    | { by: 'address'; address: string; retryAfterSeconds: number }
    | { by: 'upstream'; retryAfterSeconds: number }
  >({
    surface: 'request',
    status: 429,
    retryable: true,
    retryAfter: {
      rule: 'computed',
      from: "the key's rate limiter (when its next operation is allowed); on a field, the reward API's Retry-After, 1 s when it sent none",
    },
    when:
      'The API key is over `RATE_LIMIT_PER_SECOND` (burst `RATE_LIMIT_BURST`): the request is refused with 429, a WebSocket ' +
      '`subscribe` fails with this error and a `connection_init` closes the socket with 4429. Also on a field, in a 200 ' +
      'answer, when the reward API rate limits the gateway itself. Without API keys (development) the limit is per remote address.',
    message: (p) =>
      p.by === 'key'
        ? `Rate limit of API key "${p.apiKey}" exceeded; retry in ${p.retryAfterSeconds}s.`
        : p.by === 'address'
          ? `Rate limit of ${p.address} exceeded (without API keys each address has its own RATE_LIMIT_PER_SECOND); retry in ${p.retryAfterSeconds}s.`
          : 'The reward API is rate limiting the gateway; retry later.',
    examples: [
      { by: 'key', apiKey: 'mobile', retryAfterSeconds: 2 },
      { by: 'address', address: '127.0.0.1', retryAfterSeconds: 1 },
      { by: 'upstream', retryAfterSeconds: 1 },
    ],
  }),
  CORS_ORIGIN_NOT_ALLOWED: failure({
    surface: 'request',
    status: 403,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    headers: { vary: 'origin' },
    when: "A browser's CORS preflight (OPTIONS) from an origin that is not in `CORS_ORIGINS`, the browser then sending nothing; or a request to `/mcp` with such an `Origin` (MCP's check against DNS rebinding).",
    message: () =>
      'This origin is not in CORS_ORIGINS: add it there (comma-separated origins, e.g. https://app.example.com) to let its pages call the gateway.',
    examples: [{}],
  }),
  NOT_ACCEPTABLE: failure<{ produced: readonly string[] }>({
    surface: 'request',
    status: 406,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    headers: { vary: 'accept' },
    when: 'The `Accept` header allows none of the formats the gateway answers in; nothing was executed (a mutation has not run).',
    message: (p) => `Cannot answer in any type the Accept header allows; nothing was executed. Accept one of: ${p.produced.join(', ')}.`,
    examples: [{ produced: ['application/graphql-response+json', 'application/json', 'text/event-stream', 'multipart/mixed'] }],
  }),

  // Documents refused while parsed or validated: nothing ran.
  TOKEN_LIMIT_EXCEEDED: failure<ArmorRefusal>({
    surface: 'document',
    status: 400,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'The document has more lexical tokens than `MAX_TOKENS`.',
    message: (p) => `${p.detail} Send a shorter document: fewer fields, arguments or fragments.`,
    extensions: limitExtension,
    examples: [{ detail: 'Token limit of 3000 exceeded.', limit: 3000 }],
  }),
  DEPTH_LIMIT_EXCEEDED: failure<ArmorRefusal>({
    surface: 'document',
    status: 400,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'Fields nest deeper than `MAX_DEPTH` (fragments counted where they are spread).',
    message: (p) => `${p.detail} Select less deeply nested fields, or split the operation.`,
    extensions: limitExtension,
    examples: [{ detail: 'Query depth limit of 12 exceeded, found 13.', limit: 12 }],
  }),
  ALIAS_LIMIT_EXCEEDED: failure<ArmorRefusal>({
    surface: 'document',
    status: 400,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'The operation uses more aliases than `MAX_ALIASES`.',
    message: (p) => `${p.detail} Use fewer aliases, or split the operation.`,
    extensions: limitExtension,
    examples: [{ detail: 'Aliases limit of 20 exceeded, found 21.', limit: 20 }],
  }),
  PERSISTED_QUERY_ONLY: failure({
    surface: 'operation',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'Trusted-documents mode (`TRUSTED_DOCUMENTS`) and the request sends a document, or no document id at all.',
    message: () => 'This gateway runs trusted documents only: send a documentId from the published manifest.',
    examples: [{}],
  }),
  PERSISTED_QUERY_NOT_FOUND: failure<{ apq?: boolean }>({
    surface: 'operation',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when:
      'Trusted-documents mode and the document id is not in the manifest; or, without it, an automatic persisted query ' +
      '(`extensions.persistedQuery`) whose hash this gateway has not been sent the document of yet.',
    message: (p) =>
      p.apq
        ? "Unknown persisted query hash: send the request again with the query and the same extensions.persistedQuery to register it (Apollo Client's persisted-query link does so by itself)."
        : 'Unknown trusted document id: send a documentId from the published manifest.',
    examples: [{}, { apq: true }],
  }),
  PERSISTED_QUERY_MISMATCH: failure({
    surface: 'operation',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'An automatic persisted query sends a document whose SHA-256 is not the `extensions.persistedQuery.sha256Hash` it names.',
    message: () => 'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent: hash the exact query text (hex, lower case).',
    examples: [{}],
  }),
  COST_LIMIT_EXCEEDED: failure<{ cost: number; limit: number }>({
    surface: 'operation',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when:
      'The operation would cost more than `MAX_COST`: every field costs 1, what sits under a page or list is multiplied by its ' +
      'size, and each entry of a list argument adds 200 as an upstream lookup of its own.',
    message: (p) => `Operation cost ${p.cost} exceeds the limit of ${p.limit}; ask for smaller pages or fewer items.`,
    extensions: {
      of: (p) => ({ cost: p.cost, limit: p.limit }),
      fields: { cost: 'what the operation would cost', limit: 'the limit in force' },
    },
    examples: [{ cost: 26_000, limit: 25_000 }],
  }),

  // Fields and subscriptions.
  BAD_USER_INPUT: failure<BadUserInput>({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when:
      'An argument breaks a rule the gateway checks before calling the reward API (mutations answer a `ValidationError` ' +
      'instead), or a subscription resumes from a cursor it did not issue for it. `brand(code:)` answers an unknown code ' +
      'with `null`, not an error; for a near miss it adds this shape to `extensions.hints` of the response, naming the codes ' +
      'it probably meant.',
    message: badUserInputMessage,
    extensions: {
      of: (p) => (p.reason === 'invalid-input' ? { issues: p.issues } : p.reason === 'unknown-brand' ? { suggestions: p.suggestions } : {}),
      fields: {
        issues: 'for input that broke a validation rule: each `{ path, message }`',
        suggestions: 'for a brand code the catalog does not have: the known codes closest to it, best first',
      },
    },
    examples: [
      { reason: 'invalid-input', issues: [{ path: ['ref'], message: 'must not contain a slash or a backslash' }] },
      { reason: 'page-size', max: 100, first: 500 },
      { reason: 'foreign-cursor', cursor: 'abc' },
      { reason: 'unknown-region', region: 'Atlantis', known: ['Canada', 'USA'] },
      { reason: 'unknown-brand', brandCode: 'sbxcofeeus', suggestions: ['sbxcoffeeus', 'sbxcoffeeca'] },
      { reason: 'bad-reference', what: 'campaign reference', problem: 'must not be only dots' },
      { reason: 'resume-cursor', problem: 'other-subscription' },
      { reason: 'money-as-string' },
    ],
  }),
  NOT_FOUND: failure<{ ref: string }>({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'A subscription names an order the reward API does not know. (Queries answer `null`, mutations `NotFound`.)',
    message: (p) => `No campaign is known by "${p.ref}": subscribe with the id or uuid of an existing order.`,
    examples: [{ ref: 'thank-you-0001' }],
  }),
  FORBIDDEN: failure<{ apiKey: string; byToken?: boolean; field: string; missing: string; missingScopes: readonly string[] }>({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'The API key or access token lacks a scope the field needs; checked before the input is validated or anything runs.',
    message: (p) =>
      p.byToken
        ? `The access token of "${p.apiKey.replace(/^token:/, '')}" may not use ${p.field}${p.missing}; ask its issuer for a token with that scope.`
        : `The API key "${p.apiKey}" may not use ${p.field}${p.missing}.`,
    extensions: {
      of: (p) => ({ missingScopes: p.missingScopes }),
      fields: { missingScopes: 'the scopes that would allow it' },
    },
    examples: [
      { apiKey: 'dashboard', field: 'Query.funds', missing: ': it needs the scope funds:read', missingScopes: ['funds:read'] },
      { apiKey: 'token:user-1', byToken: true, field: 'Query.funds', missing: ': it needs the scope funds:read', missingScopes: ['funds:read'] },
    ],
  }),
  CATALOG_UNAVAILABLE: failure({
    surface: 'field',
    status: 200,
    retryable: true,
    retryAfter: NO_RETRY_AFTER,
    when: 'A create needs the brand catalog (its spelling of brand codes and regions) and it could not be read; the create was not sent.',
    message: () => 'The brand catalog could not be read, so nothing was sent; retry shortly with the same input.',
    extensions: { of: () => ({ retryable: true }), fields: { retryable: 'always true: nothing was sent' } },
    examples: [{}],
  }),
  UPSTREAM_TIMEOUT: failure<MayBeUnknownOutcome>({
    surface: 'field',
    status: 200,
    retryable: true,
    retryAfter: NO_RETRY_AFTER,
    when: 'The reward API did not answer within `UPSTREAM_TIMEOUT_MS`, on every attempt the retry budget allowed.',
    message: (p) => (p.outcomeUnknown ? OUTCOME_UNKNOWN : 'The reward API did not answer in time; retry shortly.'),
    extensions: unknownOutcomeExtensions,
    examples: [{}, { outcomeUnknown: true }],
  }),
  UPSTREAM_UNAVAILABLE: failure<
    MayBeUnknownOutcome & { /** Set while the circuit breaker is open: seconds until its next probe. */ circuitOpenSeconds?: number }
  >({
    surface: 'field',
    status: 200,
    retryable: true,
    retryAfter: NO_RETRY_AFTER,
    when:
      'The reward API could not be reached, reset the connection, answered 5xx or an unreadable body, after every retry; ' +
      'or it failed `UPSTREAM_BREAKER_FAILURES` times in a row and the circuit breaker is open, so the read failed at once ' +
      'with nothing sent (mutations answer `UpstreamUnavailable`).',
    message: (p) =>
      p.outcomeUnknown
        ? OUTCOME_UNKNOWN
        : p.circuitOpenSeconds !== undefined
          ? `The reward API is failing and the gateway has stopped calling it for now; nothing was sent. Retry in ${p.circuitOpenSeconds}s.`
          : 'The reward API is unavailable right now; retry shortly.',
    extensions: unknownOutcomeExtensions,
    examples: [{}, { outcomeUnknown: true }, { circuitOpenSeconds: 4 }],
  }),
  UPSTREAM_UNAUTHORIZED: failure({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: "The reward API refused the gateway's own token (401 or 403): an operator's matter, not the client's.",
    message: () => 'The gateway could not authenticate to the reward API; its operator must check REWARD_API_TOKEN.',
    examples: [{}],
  }),
  UPSTREAM_REJECTED: failure<{ upstreamMessage: string; upstreamStatus: number; upstreamCode: string | null }>({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'The reward API refused a read with a 4xx other than 401, 403 and 429. (Mutations answer `UpstreamRejected`.)',
    message: (p) => `The reward API rejected the request: ${p.upstreamMessage}`,
    extensions: {
      of: (p) => ({ upstreamStatus: p.upstreamStatus, upstreamCode: p.upstreamCode }),
      fields: {
        upstreamStatus: "the reward API's HTTP status",
        upstreamCode: "the reward API's code (`UPSTREAM_ERROR` when it sent something else)",
      },
    },
    examples: [{ upstreamMessage: 'GET /brands/:code: invalid region', upstreamStatus: 422, upstreamCode: 'ERROR_INVALID_PARAMETERS' }],
  }),
  GATEWAY_OVERLOADED: failure({
    surface: 'field',
    status: 200,
    retryable: true,
    retryAfter: { rule: 'fixed', seconds: 1 },
    when:
      "The gateway's own queue for the reward API refused the call before it went out (`UPSTREAM_QUEUE_TIMEOUT_MS`, " +
      '`UPSTREAM_QUEUE_MAX`, or the key could not be served in time): nothing was sent.',
    message: () =>
      'The gateway is at capacity right now: its calls to the reward API would wait longer than it allows (UPSTREAM_QUEUE_TIMEOUT_MS); retry shortly.',
    examples: [{}],
  }),
  UPSTREAM_BUSY: failure<{ retryAfterSeconds: number }>({
    surface: 'field',
    status: 200,
    retryable: true,
    retryAfter: { rule: 'computed', from: "the upstream budget's queue: when a token is expected for a read sent now" },
    when:
      'The upstream budget (`UPSTREAM_RATE_LIMIT_PER_SECOND`, or the rate the reward API was found to accept) had no ' +
      'token for this read within `UPSTREAM_QUEUE_TIMEOUT_MS`, or its queue showed it would not: nothing was sent. Writes ' +
      'and live pollers are served first.',
    message: (p) =>
      `The gateway is at its budget of calls to the reward API and could not fit this read in; nothing was sent. Retry in ${p.retryAfterSeconds}s.`,
    examples: [{ retryAfterSeconds: 2 }],
  }),
  REQUEST_ABORTED: failure<MayBeUnknownOutcome>({
    surface: 'field',
    status: 200,
    retryable: true,
    retryAfter: NO_RETRY_AFTER,
    when: 'The call to the reward API was cut short: the client went away, or the gateway reached its shutdown deadline.',
    message: (p) => (p.outcomeUnknown ? OUTCOME_UNKNOWN : 'The request was cancelled before the reward API answered; send it again.'),
    extensions: unknownOutcomeExtensions,
    examples: [{}, { outcomeUnknown: true }],
  }),
  STORE_UNAVAILABLE: failure<MayBeUnknownOutcome>({
    surface: 'field',
    status: 200,
    retryable: true,
    retryAfter: NO_RETRY_AFTER,
    when:
      "Cluster mode: the gateway's shared store (Redis) did not answer within `REDIS_COMMAND_TIMEOUT_MS`, or no server " +
      'could take the command (connection lost, a failover under way). A change whose write it did not answer (a webhook ' +
      'endpoint created, changed, rotated, deleted or replayed) may have been saved; one that failed at its first read wrote nothing.',
    message: (p) =>
      p.outcomeUnknown
        ? "The gateway's shared store (Redis) stopped answering during this change, which may have been saved: read it " +
          'back before making it again (an endpoint created this way holds a secret nobody was given: rotate it).'
        : "The gateway's shared store (Redis) does not answer now; retry shortly.",
    extensions: unknownOutcomeExtensions,
    examples: [{}, { outcomeUnknown: true }],
  }),
  INTERNAL_SERVER_ERROR: failure({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when:
      'Anything unforeseen (a bug): the client sees nothing of it, the operator finds it logged at error level under the ' +
      'request id the client got in `x-request-id`.',
    // Nothing more: the text of an unforeseen failure may hold what no client should read.
    message: () => 'Unexpected error.',
    examples: [{}],
  }),
  CURSOR_EXPIRED: failure<{ reason: string }>({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'A subscription resumes (`after`) from a cursor whose events are no longer kept (`LIVE_RETENTION_MS`, or the log was reset).',
    message: (p) =>
      `The events after this cursor can no longer be delivered: ${p.reason}. Reload the current state and subscribe again without "after".`,
    examples: [{ reason: 'it is older than LIVE_RETENTION_MS or was trimmed from the log' }],
  }),
  LIVE_CAPACITY_EXCEEDED: failure<{ max: number }>({
    surface: 'field',
    status: 200,
    retryable: true,
    retryAfter: NO_RETRY_AFTER,
    when: 'The subscription needs a new poller and this replica already runs `LIVE_MAX_POLLERS`.',
    message: (p) => `This gateway replica already watches its maximum of ${p.max} orders (LIVE_MAX_POLLERS); try again later.`,
    examples: [{ max: 2000 }],
  }),
  WATCH_LIMIT_EXCEEDED: failure<{ max: number }>({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'The API key already watches `LIVE_MAX_WATCHED_PER_KEY` orders across the cluster.',
    message: (p) => `This API key already watches its maximum of ${p.max} orders (LIVE_MAX_WATCHED_PER_KEY); end a subscription first.`,
    examples: [{ max: 200 }],
  }),
  SUBSCRIPTIONS_PER_KEY_EXCEEDED: failure<{ limit: number }>({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'The API key already has `LIVE_MAX_SUBSCRIPTIONS_PER_KEY` subscriptions open, WebSocket and SSE together, across the cluster.',
    message: (p) =>
      `This API key already has its maximum of ${p.limit} subscriptions open (LIVE_MAX_SUBSCRIPTIONS_PER_KEY, counted across every replica); end one first.`,
    extensions: limitExtension,
    examples: [{ limit: 2000 }],
  }),
  LIVE_QUERIES_PER_KEY_EXCEEDED: failure<{ limit: number }>({
    surface: 'operation',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'The API key already has `LIVE_QUERY_MAX_PER_KEY` live queries (`@live`) open, WebSocket and SSE together, across the cluster.',
    message: (p) =>
      `This API key already has its maximum of ${p.limit} live queries open (LIVE_QUERY_MAX_PER_KEY, counted across every replica); end one first.`,
    extensions: limitExtension,
    examples: [{ limit: 500 }],
  }),
  SUBSCRIPTIONS_PER_SOCKET_EXCEEDED: failure<{ limit: number }>({
    surface: 'field',
    status: 200,
    retryable: false,
    retryAfter: NO_RETRY_AFTER,
    when: 'One WebSocket already has `WS_MAX_SUBSCRIPTIONS_PER_SOCKET` operations open; the socket stays open.',
    message: (p) =>
      `This WebSocket already has its maximum of ${p.limit} operations open (WS_MAX_SUBSCRIPTIONS_PER_SOCKET); complete one, or open another connection.`,
    extensions: limitExtension,
    examples: [{ limit: 200 }],
  }),
};

export type GatewayCode = keyof typeof CATALOGUE;

export type ParamsOf<C extends GatewayCode> = (typeof CATALOGUE)[C] extends Failure<infer P> ? P : never;
