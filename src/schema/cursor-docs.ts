// The words every subscription uses for its event cursors and its `after` argument.

export const CURSOR_DESCRIPTION =
  'Where this event is in the log of its subscription: pass it as `after` when subscribing again (to any ' +
  'replica) to get every later event exactly once.';

export const AFTER_DESCRIPTION =
  'Resume after this `cursor`: first every event after it, then live ones. CURSOR_EXPIRED when those events ' +
  'are no longer kept (reload, then subscribe without it); BAD_USER_INPUT for a cursor of another subscription.';
