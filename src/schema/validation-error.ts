import { GraphQLError } from 'graphql';
import type { ZodError } from 'zod';

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
    const summary = issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
    super(`Invalid input: ${summary}`, { extensions: { code: 'BAD_USER_INPUT', issues } });
    this.name = 'InputValidationError';
    this.issues = issues;
  }

  static fromZod(error: ZodError): InputValidationError {
    return new InputValidationError(
      error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })),
    );
  }
}
