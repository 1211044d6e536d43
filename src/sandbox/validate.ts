// Request validation shared by the handlers: zod for bodies, small parsers for query strings. Every refusal
// names the field, because the gateway surfaces these messages to its own callers.
import { z } from 'zod';
import { invalidParameter, malformed } from './errors.js';

/** Caller ids: the specification says long strings are accepted; we cap them at 4,096 characters. */
export const callerIdSchema = z.string().min(1).max(4096);
/** Face values: positive integer cents up to $100,000; the brand's own bounds are checked afterwards. */
export const priceSchema = z.number().int().positive().max(10_000_000);

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined) throw malformed('This request needs a JSON object body.');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw malformed('The request body must be a JSON object.');
  }
  const result = schema.safeParse(body);
  if (!result.success) throw invalidParameter(describeIssue(result.error.issues[0]));
  return result.data;
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'Invalid request.';
  const field = issue.path.map(String).join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}

/** Query parameters as single values; a repeated parameter is ambiguous and refused. */
export class Query {
  private readonly values = new Map<string, string>();

  constructor(search: string) {
    for (const [key, value] of new URLSearchParams(search)) {
      if (this.values.has(key)) throw invalidParameter(`${key}: give this parameter once`);
      this.values.set(key, value);
    }
  }

  string(name: string): string | undefined {
    return this.values.get(name);
  }

  int(name: string, bounds: { min: number; max: number }, fallback: number): number;
  int(name: string, bounds: { min: number; max: number }): number | undefined;
  int(name: string, bounds: { min: number; max: number }, fallback?: number): number | undefined {
    const raw = this.values.get(name);
    if (raw === undefined) return fallback;
    if (!/^-?\d{1,15}$/.test(raw)) throw invalidParameter(`${name}: expected an integer, got "${raw}"`);
    const value = Number(raw);
    if (value < bounds.min || value > bounds.max) {
      throw invalidParameter(`${name}: must be between ${bounds.min} and ${bounds.max}`);
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const raw = this.values.get(name);
    if (raw === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(raw)) {
      throw invalidParameter(`${name}: must be one of ${allowed.join(', ')}`);
    }
    return raw as T;
  }

  bool(name: string): boolean | undefined {
    const raw = this.oneOf(name, ['true', 'false']);
    return raw === undefined ? undefined : raw === 'true';
  }
}
