import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { inspectorCall, launch, startGatewayProcess, stopper, type SandboxProcess } from './processes.js';
import { closeSubscribers, GIFT_CHANGES, openSubscribers, waitForGauges } from './subscribers.js';

// Heap per idle subscriber, the gateway against the bare stack (issue 30): the compiled gateway and a bare
// yoga + graphql-ws server (bench/peers/yoga-ws.mjs) each hold one `giftStatusChanged(campaign:)` subscriber
// per order, then `count` more, one WebSocket each; heap used after two forced GCs (through each process's
// inspector, loopback, ephemeral port) before and after, divided by `count`.

const ORDERS = 20;

export interface SubscriberHeap {
  subscribers: number;
  gatewayBytesPerSubscriber: number;
  bareBytesPerSubscriber: number;
}

interface Held {
  url: string;
  inspectorUrl: string;
  /** Resolves once the server holds `n` subscriptions. */
  holding(n: number): Promise<void>;
  stop(): Promise<void>;
}

async function heapAfterGc(inspectorUrl: string): Promise<number> {
  await inspectorCall(inspectorUrl, 'HeapProfiler.collectGarbage');
  await inspectorCall(inspectorUrl, 'HeapProfiler.collectGarbage');
  return ((await inspectorCall(inspectorUrl, 'Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
}

async function perSubscriber(server: Held, variables: (n: number) => Record<string, unknown>[], count: number): Promise<number> {
  const first = await openSubscribers(server.url, GIFT_CHANGES, variables(ORDERS));
  await server.holding(ORDERS);
  await sleep(1_000);
  const before = await heapAfterGc(server.inspectorUrl);
  const rest = await openSubscribers(server.url, GIFT_CHANGES, variables(count));
  await server.holding(ORDERS + count);
  await sleep(1_000);
  const after = await heapAfterGc(server.inspectorUrl);
  await closeSubscribers([...first, ...rest]);
  return Math.round((after - before) / count);
}

export async function subscriberHeap(sandbox: SandboxProcess, compiledEntry: string, count: number): Promise<SubscriberHeap> {
  const upstream = sandboxClient(sandbox);
  const orders: string[] = [];
  for (let i = 0; i < ORDERS; i++)
    orders.push((await upstream.createEmailOrder(`bench-heap-${Date.now()}-${i}`, { recipients: 2, brandCode: 'sbxcoffeeus' })).uuid);
  const variables = (n: number) => Array.from({ length: n }, (_, i) => ({ campaign: orders[i % ORDERS]! }));

  const gateway = await startGatewayProcess({ upstream: sandbox, pollIntervalMs: 1_000, cpuProfDir: null, compiledEntry });
  let gatewayBytes: number;
  try {
    gatewayBytes = await perSubscriber(
      { ...gateway, holding: (n) => waitForGauges(gateway, { subscriptions: n, pollers: ORDERS }) },
      variables,
      count,
    );
  } finally {
    await gateway.stop();
  }

  const { child, lines, waitFor } = launch(
    'bench/peers/yoga-ws.mjs',
    { NODE_ENV: 'production', PEER_PORT: '0', REWARD_API_URL: sandbox.baseUrl, REWARD_API_TOKEN: sandbox.token },
    ['--inspect=127.0.0.1:0'],
    false,
  );
  const stop = stopper(child);
  try {
    const [[, inspectorUrl], [, port]] = await Promise.all([
      waitFor(/Debugger listening on (ws:\/\/\S+)/, 'inspector URL'),
      waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 'listening line'),
    ]);
    // graphql-ws acknowledges a socket before its subscription is set up; a moment covers the last ones.
    const bare: Held = { url: `http://127.0.0.1:${port}`, inspectorUrl: inspectorUrl!, holding: () => sleep(1_000), stop };
    const bareBytes = await perSubscriber(bare, variables, count);
    if (lines.some((l) => /error/i.test(l))) throw new Error(`yoga-ws: ${lines.join('\n').slice(0, 500)}`);
    return { subscribers: count, gatewayBytesPerSubscriber: gatewayBytes, bareBytesPerSubscriber: bareBytes };
  } finally {
    await stop();
  }
}
