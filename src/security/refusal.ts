import { GraphQLError } from 'graphql';
import type { DescribedFailure } from '../errors/gateway-error.js';

// A refusal of the access pipeline that comes before any document is read (authentication, rate limit, Accept):
// over HTTP a response of its own with the catalogue's status and headers, over WebSocket the same message and code
// as an operation's error.

export type Refusal = DescribedFailure;

export function refusalResponse(refusal: Refusal, ResponseCtor: typeof Response): Response {
  return new ResponseCtor(JSON.stringify({ errors: [{ message: refusal.message, extensions: refusal.extensions }] }), {
    status: refusal.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...refusal.headers },
  });
}

export function refusalError({ message, extensions }: Refusal): GraphQLError {
  return new GraphQLError(message, { extensions });
}
