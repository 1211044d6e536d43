import { randomUUID } from 'node:crypto';
import { EXPIRY, type Lease, type LogEntry, type LogPosition, type LogRead, type Snapshot, type StoreTiming } from '../cluster/store.js';
import { compareIds } from './cursor.js';
import type { LiveStore } from './store.js';

// The shared state of one process: leases always granted (there is no other replica), snapshots kept for the
// retention period, and per key a bounded ring of events. It is also each replica's fallback while Redis is
// unreachable, so its epoch is unique to the process: its cursors are refused (expired) anywhere else.

/** Events kept per key whatever their age, so a key changing fast cannot grow without bound. */
export const MEMORY_LOG_LIMIT = 1_000;

interface KeyLog {
  entries: LogEntry[];
  /** Id of the newest entry ever trimmed: a cursor before it has lost events. */
  trimmedThrough: string | null;
  lastId: string;
  appendedAt: number[];
}

export function createMemoryStore(timing: StoreTiming, now: () => number = Date.now): LiveStore {
  const epoch = `m${randomUUID()}`;
  const owner = `local-${process.pid}`;
  const leases = new Map<string, number>();
  let nextToken = 1;
  let sequence = 0;
  const snapshots = new Map<string, { snapshot: Snapshot; expiresAt: number }>();
  const logs = new Map<string, KeyLog>();
  const listeners = new Set<(key: string) => void>();
  const admitted = new Map<string, Set<string>>();

  function logOf(key: string): KeyLog {
    let log = logs.get(key);
    if (!log) logs.set(key, (log = { entries: [], trimmedThrough: null, lastId: '0-0', appendedAt: [] }));
    trim(log);
    return log;
  }

  function append(key: string, events: string[]): LogPosition[] {
    const log = logOf(key);
    // One clock reading for the whole append: the entries of one commit share their time, as in a Redis script.
    const at = now();
    const positions = events.map((data) => {
      const id = `${at}-${sequence++}`;
      log.entries.push({ id, data });
      log.appendedAt.push(at);
      log.lastId = id;
      return { epoch, id };
    });
    trim(log);
    return positions;
  }

  function trim(log: KeyLog): void {
    const oldest = now() - timing.retentionMs;
    let drop = 0;
    while (drop < log.entries.length && (log.entries.length - drop > MEMORY_LOG_LIMIT || log.appendedAt[drop]! < oldest)) drop++;
    if (drop === 0) return;
    log.trimmedThrough = log.entries[drop - 1]!.id;
    log.entries.splice(0, drop);
    log.appendedAt.splice(0, drop);
  }

  return {
    owner,
    healthy: true,
    async claim(key): Promise<Lease> {
      let token = leases.get(key);
      if (token === undefined) leases.set(key, (token = nextToken++));
      return { token, takenFrom: null };
    },
    async release(key, token) {
      if (leases.get(key) === token) leases.delete(key);
    },
    async snapshot(key) {
      const held = snapshots.get(key);
      if (!held || held.expiresAt <= now()) return null;
      return held.snapshot;
    },
    async commit(key, token, state, events) {
      if (leases.get(key) !== token) return null;
      append(key, events);
      const position: LogPosition = { epoch, id: logOf(key).lastId };
      snapshots.set(key, { snapshot: { state, position }, expiresAt: now() + timing.retentionMs });
      if (events.length > 0) for (const listener of [...listeners]) listener(key);
      return position;
    },
    async tail(key) {
      return { epoch, id: logOf(key).lastId };
    },
    async read(key, from, maxAgeMs = 0): Promise<LogRead> {
      if (from.epoch !== epoch) return { expired: true, reason: EXPIRY.otherLog };
      if (maxAgeMs > 0 && Number(from.id.split('-')[0]) < now() - maxAgeMs) return { expired: true, reason: EXPIRY.retention };
      const log = logOf(key);
      if (log.trimmedThrough !== null && compareIds(from.id, log.trimmedThrough) < 0) return { expired: true, reason: EXPIRY.retention };
      // This log's epoch is unique to the process, so a position past its end was never handed out: forged.
      if (compareIds(from.id, log.lastId) > 0) return { expired: true, ahead: true };
      return { expired: false, epoch, entries: log.entries.filter((e) => compareIds(e.id, from.id) > 0) };
    },
    async appendLocal(key, events) {
      return { positions: append(key, events), tail: { epoch, id: logOf(key).lastId } };
    },
    onAppend(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    // One process hears of every append already.
    follow: () => () => undefined,
    async admit(group, member, max) {
      const members = admitted.get(group) ?? new Set<string>();
      if (!members.has(member) && members.size >= max) return false;
      admitted.set(group, members.add(member));
      return true;
    },
    async dismiss(group, member) {
      const members = admitted.get(group);
      members?.delete(member);
      if (members?.size === 0) admitted.delete(group);
    },
    async refresh(group, members) {
      const known = admitted.get(group) ?? new Set<string>();
      for (const member of members) known.add(member);
      admitted.set(group, known);
    },
    async close() {
      listeners.clear();
    },
  };
}
