import { GraphQLSafeInt } from 'graphql-scalars';
import { builder } from './builder.js';

// Every amount of money in the API is whole cents in one scalar. GraphQL's Int is 32-bit: a balance of
// $21,474,836.48 or more would fail to serialise, and a top-up that crossed that line would be recorded
// upstream yet answered as an error (inviting a second top-up). graphql-scalars' SafeInt is an integer up to
// 2^53 − 1, the range a JavaScript number holds exactly, and rejects fractions and anything larger on input.

/** The scalar name of every money field: `t.field({ type: MONEY })`, `t.arg({ type: MONEY })`. */
export const MONEY = 'SafeInt' as const;

builder.addScalarType(MONEY, GraphQLSafeInt, {});
