import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.js';

// DateTime insists on an explicit offset on input: the upstream speaks Pacific wall-clock time, and a bare
// "2026-03-08T02:30:00" would be ambiguous about which zone the caller meant.
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string' || !ISO_WITH_OFFSET.test(value)) {
    throw new GraphQLError('DateTime must be an ISO-8601 string with an offset, e.g. 2026-11-22T10:00:00Z');
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new GraphQLError(`DateTime "${value}" is not a real instant`);
  return date;
}

function parseDate(value: unknown): string {
  const match = typeof value === 'string' ? ISO_DATE.exec(value) : null;
  if (!match) throw new GraphQLError('Date must be a YYYY-MM-DD string');
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) {
    throw new GraphQLError(`Date "${String(value)}" does not exist`);
  }
  return value as string;
}

builder.scalarType('DateTime', {
  description: 'An instant as ISO-8601 with an offset (output is UTC, e.g. 2026-11-22T10:00:00.000Z).',
  serialize: (value) => value.toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string');
    return parseDateTime(ast.value);
  },
});

builder.scalarType('Date', {
  description: 'A calendar date, YYYY-MM-DD. Reward expiry dates end at the end of that day, Pacific time.',
  serialize: (value) => value,
  parseValue: parseDate,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('Date must be a string');
    return parseDate(ast.value);
  },
});
