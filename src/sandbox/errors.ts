// Every refusal the sandbox makes is a SandboxError thrown from a handler; the server turns it into the
// upstream error envelope `{error: {code, name, message}, status}`, so no handler writes a response itself.

export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    message: string,
    /** Extra top-level fields of the envelope, e.g. the partial campaign of a refused order. */
    readonly extra: Record<string, unknown> = {},
    /** Response headers that belong to the refusal, e.g. `allow` on a 405. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

export function errorEnvelope(err: SandboxError): Record<string, unknown> {
  return { error: { code: err.code, name: err.title, message: err.message }, status: err.status, ...err.extra };
}

export const malformed = (message: string) => new SandboxError(400, 'ERROR_MALFORMED_REQUEST', 'Malformed request', message);

export const invalidParameter = (message: string) => new SandboxError(422, 'ERROR_INVALID_PARAMETERS', 'Invalid parameters', message);

export const invalidBrand = (message: string) => new SandboxError(422, 'ERROR_CAMPAIGN_INVALID_BRAND', 'Invalid brand', message);

export const invalidState = (message: string) => new SandboxError(422, 'ERROR_CAMPAIGN_INVALID_STATE', 'Invalid state', message);

export const notFound = (code: string, message: string) => new SandboxError(404, code, 'Not found', message);

export const unauthorized = () =>
  new SandboxError(401, 'ERROR_UNAUTHORIZED', 'Unauthorized', 'Send the header "Authorization: Bearer <token>" with a valid token.');

export const tooManyRequests = () => new SandboxError(429, 'ERROR_TOO_MANY_REQUESTS', 'Too many requests', 'Rate limit reached; retry later.');

const STATUS_TEXT: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
};

/** Production answered a 503 with a proxy's HTML page; injected 5xx faults imitate it so clients meet non-JSON. */
export function htmlErrorPage(status: number): string {
  const title = `${status} ${STATUS_TEXT[status] ?? 'Error'}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}
