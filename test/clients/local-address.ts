import { Agent, fetch as undiciFetch } from 'undici';

// A client on another loopback address (127.0.0.2, 127.0.0.3, …: all of 127.0.0.0/8 is this machine), so a test
// can be two local tools at once: keyless development rate-limits each remote address on its own.

/** fetch from `localAddress`; with `everyMs`, requests start at least that far apart (a client keeping to a rate). */
export function fetchFrom(localAddress: string, everyMs = 0): typeof fetch & { close(): Promise<void> } {
  const dispatcher = new Agent({ localAddress });
  let next = 0;
  const paced = async (input: RequestInfo | URL, init?: RequestInit) => {
    const wait = next - Date.now();
    next = Math.max(next, Date.now()) + everyMs;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return undiciFetch(input as string, { ...(init as object), dispatcher }) as unknown as Response;
  };
  return Object.assign(paced as typeof fetch, { close: () => dispatcher.close() });
}
