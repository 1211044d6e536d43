import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './redis.js';
import { EXPIRY, type Lease, type LogPosition, type LogRead, type SharedStore, type Snapshot, type StoreTiming } from './store.js';

// The shared state of a cluster in Redis (store.ts's SharedStore): leases, snapshots and event logs (one script
// per step that must be atomic, scripts.ts), the watch admissions, and the notifications of appends.

export function createRedisStore(connection: RedisConnection, { leaseMs, retentionMs }: StoreTiming): SharedStore {
  const { keys: k, guard, run, publishCommand } = connection;
  const owner = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`.replaceAll('|', '-');
  // A crashed replica's watch admissions lapse after this; renewed every interval, so a replica whose event
  // loop stalls for a while does not lose its admissions to the cap.
  const watchTtlMs = 3 * leaseMs;
  const listeners = new Set<(key: string | null) => void>();
  // What this replica knows of leases, so a quiet key costs Redis almost nothing: a lease held here is renewed
  // (one script comparing the token) once half of it has run, and the leader key with it once half the retention has; a
  // lease held elsewhere is looked at again (PTTL, one command) only when it would lapse unrenewed.
  const held = new Map<string, { value: string; lease: Lease; renewedAt: number; leaderAt: number }>();
  const elsewhereUntil = new Map<string, number>();
  /** When each API key's watch admissions were last renewed: they last 3 leases, renewed once per lease. */
  const refreshedAt = new Map<string, { at: number; members: string }>();

  /** Keys this replica held when Redis went away or came back: their next claim asks the script at once. */
  const reclaim = new Set<string>();
  // Whatever happened while Redis was up or down (a restart, a failover, leases lapsing), it is asked afresh;
  // a lease still this replica's (it survived) is taken up again at once rather than waited out.
  connection.onStateChange(() => {
    for (const key of held.keys()) reclaim.add(key);
    held.clear();
    elsewhereUntil.clear();
    refreshedAt.clear();
  });
  // Pub/sub loses what is published while its connection is down: once it is back (ioredis subscribes again),
  // every key is read, so a replica's slow sweep is only a last resort.
  connection.onResubscribed(() => {
    for (const listener of [...listeners]) listener(null);
  });
  const appended = (key: string) => {
    // The key's log grew or its lease was released: a replica waiting for the lease asks again.
    elsewhereUntil.delete(key);
    for (const listener of [...listeners]) listener(key);
  };

  return {
    owner,
    get healthy() {
      return connection.healthy;
    },
    async claim(key): Promise<Lease | null> {
      const now = Date.now();
      const mine = held.get(key);
      if (mine && now - mine.renewedAt < leaseMs / 2) return mine.lease;
      if (mine && now - mine.leaderAt < retentionMs / 2) {
        // A script, not GETEX: a lease another replica took meanwhile must keep its own expiry.
        const value = (await run('rgRenew', k.lease(key), mine.value, leaseMs)) as string | null;
        if (value === mine.value) {
          mine.renewedAt = now;
          return mine.lease;
        }
        held.delete(key);
        if (value !== null) return null;
      }
      if (!mine && (elsewhereUntil.get(key) ?? 0) > now) return null;
      if (!mine && !reclaim.delete(key)) {
        const ttl = await guard(connection.client.pttl(k.lease(key)));
        if (ttl > 0) {
          elsewhereUntil.set(key, now + ttl);
          return null;
        }
      }
      const reply = (await run('rgClaim', k.lease(key), k.fence(key), k.leader(key), owner, leaseMs, retentionMs)) as [number, string | null] | null;
      if (!reply) {
        elsewhereUntil.delete(key);
        return null;
      }
      const lease = { token: Number(reply[0]), takenFrom: reply[1] ?? null };
      held.set(key, { value: `${owner}|${lease.token}`, lease: { token: lease.token, takenFrom: null }, renewedAt: now, leaderAt: now });
      return lease;
    },
    async release(key, token) {
      held.delete(key);
      reclaim.delete(key);
      await run('rgRelease', k.lease(key), k.leader(key), `${owner}|${token}`, publishCommand, k.appended(key), key);
    },
    async snapshot(key): Promise<Snapshot | null> {
      const held = await guard(connection.client.hgetall(k.snap(key)));
      if (held.state === undefined || !held.epoch || !held.id) return null;
      return { state: held.state, position: { epoch: held.epoch, id: held.id } };
    },
    async commit(key, token, state, events) {
      const reply = (await run(
        'rgCommit',
        k.lease(key),
        k.snap(key),
        k.log(key),
        k.epoch(key),
        `${owner}|${token}`,
        state,
        retentionMs,
        connection.newEpoch(),
        publishCommand,
        k.appended(key),
        key,
        ...events,
      )) as [string, string] | null;
      // Refused: the lease is no longer this replica's, whatever it last renewed.
      if (!reply) held.delete(key);
      return reply ? { epoch: reply[0], id: reply[1] } : null;
    },
    async tail(key): Promise<LogPosition> {
      const [epoch, id] = (await run('rgTail', k.log(key), k.epoch(key), connection.newEpoch(), retentionMs)) as [string, string];
      return { epoch, id };
    },
    async read(key, from, maxAgeMs = 0): Promise<LogRead> {
      const reply = (await run('rgRead', k.log(key), k.epoch(key), connection.newEpoch(), from.epoch, from.id, maxAgeMs, retentionMs)) as [
        string,
        ...unknown[],
      ];
      if (reply[0] === 'ahead') return { expired: true, ahead: true };
      if (reply[0] !== 'ok') return { expired: true, reason: reply[0] === 'other' ? EXPIRY.otherLog : EXPIRY.retention };
      const [, epoch, entries] = reply as ['ok', string, [string, string[]][]];
      return { expired: false, epoch, entries: entries.map(([id, fields]) => ({ id, data: fields[1] ?? '' })) };
    },
    onAppend(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    follow: (key) => connection.subscribe(k.appended(key), () => appended(key)),
    async admit(group, member, max) {
      return (await run('rgAdmit', k.watch(group), member, owner, max, watchTtlMs)) === 1;
    },
    async dismiss(group, member) {
      await guard(connection.client.zrem(k.watch(group), `${member}\n${owner}`));
    },
    async refresh(group, members) {
      const now = Date.now();
      const list = members.join('\n');
      const last = refreshedAt.get(group);
      if (members.length === 0 || (last && last.members === list && now - last.at < leaseMs)) return;
      await run('rgRefresh', k.watch(group), owner, watchTtlMs, ...members);
      refreshedAt.set(group, { at: now, members: list });
    },
    async close() {
      listeners.clear();
      connection.close();
    },
  };
}
