import { GraphQLError } from 'graphql';
import { describeFailure } from '../errors/gateway-error.js';

// Caller ids, uuids, refs and brand codes travel as one path segment of an upstream URL (GET /campaign/{ref}).
// Percent-encoding keeps most characters harmless, but not all: a lone surrogate cannot be encoded at all
// (encodeURIComponent throws URIError), `.` and `..` are resolved as "this" and "parent" directory by servers
// and proxies on the way, and encoded slashes are decoded by some of them. One rule, applied by the input
// validation of every such argument and again where the client builds the path.

/**
 * Caller ids carry custom data (the spec: "accepts a long string"); 4,096 characters is what we promise. Here and
 * not with the other input bounds (orders/limits.ts): the upstream client applies this rule too, and it sits below
 * orders/.
 */
const ID_MAX_LENGTH = 4_096;

// With the u flag a surrogate code unit matches only when it is not half of a pair.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F]/;

/** Why `value` cannot be a path segment, or null when it can. */
export function segmentProblem(value: string): string | null {
  if (value.length === 0) return 'must not be empty';
  if (value.length > ID_MAX_LENGTH) return `must be at most ${ID_MAX_LENGTH} characters`;
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  if (CONTROL.test(value)) return 'must not contain control characters';
  if (/^\.+$/.test(value)) return 'must not be only dots';
  if (/[/\\]/.test(value)) return 'must not contain a slash or a backslash';
  return null;
}

/** A value that reached the upstream client without passing input validation (e.g. inside a node id). */
export class BadPathSegment extends GraphQLError {
  constructor(what: string, problem: string) {
    const { message, extensions } = describeFailure('BAD_USER_INPUT', { reason: 'bad-reference', what, problem });
    super(message, { extensions });
    this.name = 'BadPathSegment';
  }
}

/** Encodes one path segment, refusing what no encoding makes safe. */
export function pathSegment(value: string, what = 'reference'): string {
  const problem = segmentProblem(value);
  if (problem) throw new BadPathSegment(what, problem);
  return encodeURIComponent(value);
}
