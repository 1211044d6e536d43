// Types for the one undici module the transport imports by path (see transport.ts): its export is the Pool
// class the package's index re-exports, and which undici's own types describe.
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';

  const PoolClass: typeof Pool;
  export = PoolClass;
}
