import { Agent, fetch as undiciFetch } from 'undici';

// A client on another loopback address (127.0.0.2, 127.0.0.3, …: all of 127.0.0.0/8 is this machine), so a test
// can be two local tools at once: keyless development rate-limits each remote address on its own.

/** fetch from `localAddress`. */
export function fetchFrom(localAddress: string): typeof fetch & { close(): Promise<void> } {
  const dispatcher = new Agent({ localAddress });
  const from = (input: RequestInfo | URL, init?: RequestInit) =>
    undiciFetch(input as string, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
  return Object.assign(from as typeof fetch, { close: () => dispatcher.close() });
}
