import type { GraphQLError } from 'graphql';
import type { LogPosition } from '../cluster/store.js';
import { gatewayError } from '../errors/gateway-error.js';

// A position in one key's event log, handed to clients as an opaque string. It names the key (a cursor of
// another subscription is the client's mistake), the log's epoch (a Redis that restarted empty, or another
// replica's local log while Redis was down, is a different log whose positions mean nothing here) and the
// entry id (`<ms>-<seq>`, ordered, as in a Redis Stream).

export interface Cursor extends LogPosition {
  key: string;
}

const ID = /^(\d{1,20})-(\d{1,20})$/;
/** Both halves of a Redis Stream id are unsigned 64-bit integers: a larger one was never issued. */
const MAX_ID_PART = 2n ** 64n - 1n;

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.key, cursor.epoch, cursor.id]), 'utf8').toString('base64url');
}

/** The cursor a client sent for `key`; BAD_USER_INPUT when it is not one, or is one of another key. */
export function decodeCursor(text: string, key: string): Cursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parts = null;
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 3 ||
    !parts.every((p) => typeof p === 'string') ||
    !ID.test(parts[2] as string) ||
    (parts[2] as string).split('-').some((part) => BigInt(part) > MAX_ID_PART) ||
    encodeCursor({ key: parts[0] as string, epoch: parts[1] as string, id: parts[2] as string }) !== text
  ) {
    throw gatewayError('BAD_USER_INPUT', { reason: 'resume-cursor', problem: 'not-issued' });
  }
  const [cursorKey, epoch, id] = parts as [string, string, string];
  if (cursorKey !== key) throw gatewayError('BAD_USER_INPUT', { reason: 'resume-cursor', problem: 'other-subscription' });
  return { key, epoch, id };
}

/** Orders two entry ids of one log: negative, zero or positive. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}

/** Whether `id` of log `epoch` comes after `position` (a position of another log never holds it back). */
export function isAfter(epoch: string, id: string, position: LogPosition | null): boolean {
  return position === null || position.epoch !== epoch || compareIds(id, position.id) > 0;
}

/** A cursor of this log past its newest entry: no gateway issued it. */
export function cursorAhead(): GraphQLError {
  return gatewayError('BAD_USER_INPUT', { reason: 'resume-cursor', problem: 'past-end' });
}

/** A cursor that was valid once but whose events can no longer be delivered; `reason` says why (cluster/store.ts EXPIRY). */
export function cursorExpired(reason: string): GraphQLError {
  return gatewayError('CURSOR_EXPIRED', { reason });
}
