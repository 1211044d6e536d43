// Kept apart from the shapes in types.ts: the client's options (config.ts) name this event, and types.ts needs the
// scope, whose logger type config.ts defines; with the event in types.ts the three modules imported each other.

/** One finished upstream call, for metrics and logs. Never carries the token or a body. */
export interface CallEvent {
  /** Route pattern, e.g. "GET /campaign/:id". */
  route: string;
  /** HTTP status of the last attempt, or 0 when no response arrived. */
  status: number;
  attempts: number;
  durationMs: number;
  outcome: 'ok' | 'error';
  errorKind?: string;
  /** A create whose answer was lost and then found by looking the order up; status is the last write's. */
  recovered?: boolean;
}
