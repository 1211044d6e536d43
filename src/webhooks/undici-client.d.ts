// Types for the undici modules the egress imports by path (see egress.ts): the Client class and the request()
// method the package's index puts on every dispatcher, both as undici's own types describe them.
declare module 'undici/lib/dispatcher/client.js' {
  import type { Client } from 'undici';

  const ClientClass: typeof Client;
  export = ClientClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';

  const request: Dispatcher['request'];
  export = request;
}
