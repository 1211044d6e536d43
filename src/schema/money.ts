import { Kind } from 'graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { gatewayError } from '../errors/gateway-error.js';
import { builder } from './builder.js';

// Every amount of money in the API is whole cents in one scalar. GraphQL's Int is 32-bit: a balance of
// $21,474,836.48 or more would fail to serialise, and a top-up that crossed that line would be recorded
// upstream yet answered as an error (inviting a second top-up). graphql-scalars' SafeInt is an integer up to
// 2^53 − 1, the range a JavaScript number holds exactly, and rejects fractions and anything larger on input.
// A string ("2500", as some JSON encoders write big numbers) is refused in words that say so: graphql-scalars'
// own message ("cannot represent non-integer value: 2500") reads as if 2500 were not whole.

/** The scalar name of every money field: `t.field({ type: MONEY })`, `t.arg({ type: MONEY })`. */
export const MONEY = 'SafeInt' as const;

const notAString = () => gatewayError('BAD_USER_INPUT', { reason: 'money-as-string' });

builder.addScalarType(MONEY, GraphQLSafeInt, {
  parseValue: (value) => {
    if (typeof value === 'string') throw notAString();
    return GraphQLSafeInt.parseValue(value) as number;
  },
  parseLiteral: (node, variables) => {
    if (node.kind === Kind.STRING) throw notAString();
    return GraphQLSafeInt.parseLiteral(node, variables) as number;
  },
});
