import { GraphQLError } from 'graphql';

// A refusal of the access pipeline that comes before any document is read (authentication, rate limit): over
// HTTP a response of its own with its status, over WebSocket the same message and code as an operation's error.

export interface Refusal {
  status: 401 | 429;
  code: 'UNAUTHENTICATED' | 'RATE_LIMITED';
  message: string;
  retryAfterSeconds?: number;
}

export function refusalResponse(refusal: Refusal, ResponseCtor: typeof Response): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (refusal.status === 401) headers['www-authenticate'] = 'Bearer';
  if (refusal.retryAfterSeconds) headers['retry-after'] = String(refusal.retryAfterSeconds);
  const extensions = { code: refusal.code, ...(refusal.retryAfterSeconds ? { retryAfterSeconds: refusal.retryAfterSeconds } : {}) };
  return new ResponseCtor(JSON.stringify({ errors: [{ message: refusal.message, extensions }] }), {
    status: refusal.status,
    headers,
  });
}

export function refusalError({ message, code, retryAfterSeconds }: Refusal): GraphQLError {
  return new GraphQLError(message, { extensions: { code, retryAfterSeconds } });
}
