import { GraphQLError } from 'graphql';
import type { ZodError } from 'zod';
import { describeFailure } from '../errors/gateway-error.js';
import type { ContactResult } from '../upstream/types.js';

// The expected failures of mutations, as plain classes: orders/ throws them, and schema/errors.ts registers each
// as a GraphQL type (implementing `Error { message }`) so it is returned as data in the mutation's result union.
// Kept apart from the schema because importing a schema file registers types as a side effect.

/** The upstream refused the request (a 4xx other than auth or rate limiting). */
export class UpstreamRejected extends Error {
  constructor(
    message: string,
    readonly code: string | null,
    readonly status: number,
    /** Per-recipient results, when the upstream refused an email order for its recipients. */
    readonly contacts: ContactResult[] | null = null,
  ) {
    super(message);
    this.name = 'UpstreamRejected';
  }
}

export class NotFound extends Error {
  constructor(
    readonly ref: string,
    what: string,
  ) {
    super(`No ${what} is known by "${ref}".`);
    this.name = 'NotFound';
  }
}

export class NotCancellable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotCancellable';
  }
}

/** The caller's id was already used for a different order. */
export class IdempotencyConflict extends Error {
  constructor(
    readonly id: string,
    readonly conflictingFields: readonly string[],
  ) {
    const which = conflictingFields.length > 0 ? ` (it differs in ${conflictingFields.join(', ')})` : '';
    super(`The id "${id}" was already used for a different request${which}; use a new id for a new order.`);
    this.name = 'IdempotencyConflict';
  }
}

/**
 * A write that may or may not have taken effect upstream, and the gateway could not find out which. Never a
 * "retry shortly": the fields say whether repeating is safe and what to look at first.
 */
export class OutcomeUnknown extends Error {
  constructor(
    message: string,
    readonly retrySameIdIsSafe: boolean,
    readonly checkBefore: string | null,
  ) {
    super(message);
    this.name = 'OutcomeUnknown';
  }
}

/**
 * The circuit breaker is open: the reward API failed repeatedly and the gateway sent nothing. Unlike
 * OutcomeUnknown there is nothing to check: retry the very same request (same id) after `retryAfterSeconds`.
 */
export class UpstreamUnavailable extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(
      `The reward API is failing and the gateway has stopped calling it for now; nothing was sent. ` +
        `Send the very same request again (same id) in ${retryAfterSeconds}s.`,
    );
    this.name = 'UpstreamUnavailable';
  }
}

export interface ValidationIssueShape {
  path: string[];
  message: string;
}

/**
 * Bad input, found before any upstream call. Mutations list it among their error types (errors as data);
 * elsewhere it is a GraphQL error with code BAD_USER_INPUT.
 */
export class InputValidationError extends GraphQLError {
  readonly issues: ValidationIssueShape[];

  constructor(issues: ValidationIssueShape[]) {
    const { message, extensions } = describeFailure('BAD_USER_INPUT', { reason: 'invalid-input', issues });
    super(message, { extensions });
    this.name = 'InputValidationError';
    this.issues = issues;
  }

  static fromZod(error: ZodError): InputValidationError {
    return new InputValidationError(error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })));
  }
}
