import { GraphQLError } from 'graphql';
import type { MaskError } from 'graphql-yoga';
import type { GatewayCode } from '../errors/catalogue.js';
import { loggerOf } from './log-scope.js';
import type { Logger } from './logger.js';

// The client sees "Unexpected error." and nothing else; the operator must see what really happened. Wraps the
// gateway's maskError and logs, at error level with the stack, every failure it masks as
// INTERNAL_SERVER_ERROR: a bug or an unforeseen failure, never an upstream error or a client's mistake (those
// have their own codes and show in the operation's log line). Logged on the logger of the operation the error
// came from (log-scope.ts), so the line carries the request id the client got in `x-request-id`.

export function reportUnexpectedErrors(maskError: MaskError, fallback: Logger): MaskError {
  return (error, message, isDev) => {
    const masked = maskError(error, message, isDev);
    if (masked instanceof GraphQLError && masked.extensions.code === ('INTERNAL_SERVER_ERROR' satisfies GatewayCode)) {
      const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
      loggerOf(error, fallback).error({ err: original, path: masked.path?.join('.') }, 'unexpected error (masked for the client)');
    }
    return masked;
  };
}
