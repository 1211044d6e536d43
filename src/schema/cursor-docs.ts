// The words every subscription uses for its event cursors, its `after` argument and when a change was seen.

export const CURSOR_DESCRIPTION =
  'Where this event is in the log of its subscription: pass it as `after` when subscribing again (to any ' +
  'replica) to get every later event exactly once.';

export const AFTER_DESCRIPTION =
  'Resume after this `cursor`: first every event after it, then live ones. CURSOR_EXPIRED when those events ' +
  'are no longer kept (reload, then subscribe without it); BAD_USER_INPUT for a cursor of another subscription.';

export const CHANGED_AT_DESCRIPTION = 'When the gateway saw the change, at most one poll interval after it happened.';
