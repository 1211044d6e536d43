// How much one read-scoped API key can make a gateway hold (issue 22: one key grew a gateway to ~1.5 GB in five
// minutes). Starts `src/main.ts` on the embedded sandbox with one key and no rate limit to speak of, then, for
// FLOOD_SECONDS, four clients open WebSockets and send as many `subscribe` messages as each socket takes: ids of
// FLOOD_ID_CHARS characters, documents padded with a comment of FLOOD_PAD_CHARS. Prints what the gateway holds
// at the end (its own gauges and memory) and how sockets were closed.
//
//   npx tsx scripts/measure-one-key-flood.ts                                      # long documents, 128-char ids
//   FLOOD_ID_CHARS=95000 FLOOD_PAD_CHARS=10 npx tsx scripts/measure-one-key-flood.ts   # the long ids
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';

const KEY = 'flood-key-0123456789abcdef01234';
const SECONDS = Number(process.env.FLOOD_SECONDS ?? 30);
const ID_CHARS = Number(process.env.FLOOD_ID_CHARS ?? 128);
const PAD_CHARS = Number(process.env.FLOOD_PAD_CHARS ?? 94_000);
const CLIENTS = 4;

const gateway = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  env: {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
    SANDBOX_PORT: '0',
    GATEWAY_API_KEYS: JSON.stringify([{ name: 'flood', key: KEY, scopes: ['rewards:read'] }]),
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
  },
  stdio: ['ignore', 'pipe', 'ignore'],
});
let out = '';
const url = await new Promise<string>((resolve, reject) => {
  gateway.stdout.on('data', (chunk) => {
    out += chunk;
    const listening = /"url":"(http[^"]+)"/.exec(out);
    if (listening) resolve(listening[1]!);
  });
  gateway.once('exit', () => reject(new Error(`the gateway exited:\n${out}`)));
});

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}
const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

const idleRss = await metric('process_resident_memory_bytes');
const query = `# ${'x'.repeat(PAD_CHARS)}\nsubscription { giftStatusChanged { gift { uuid } } }`;
const sockets: WebSocket[] = [];
const closeCodes: Record<number, number> = {};
let sent = 0;
let refused = 0;
const until = Date.now() + SECONDS * 1000;

async function flood(): Promise<void> {
  while (Date.now() < until) {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    sockets.push(socket);
    let open = true;
    socket.on('error', () => undefined);
    socket.on('close', (code) => {
      open = false;
      closeCodes[code] = (closeCodes[code] ?? 0) + 1;
    });
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: { errors?: unknown } };
      if (message.type === 'error' || message.payload?.errors) refused += 1;
    });
    const settled = (event: string) => new Promise((resolve) => (socket.once(event, resolve), socket.once('close', resolve)));
    await settled('open');
    if (!open) {
      await sleep(50);
      continue;
    }
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${KEY}` } }));
    await settled('message');
    for (let i = 0; open && i < 1_000 && Date.now() < until; i++) {
      const id = `${i}-`.padEnd(ID_CHARS, 'i');
      await new Promise<void>((resolve) => socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }), () => resolve()));
      sent += 1;
    }
  }
}

await Promise.all(Array.from({ length: CLIENTS }, flood));
await sleep(2_000);
console.log(
  JSON.stringify({
    seconds: SECONDS,
    idChars: ID_CHARS,
    documentChars: query.length,
    subscribeMessagesSent: sent,
    operationsRefused: refused,
    socketsOpened: sockets.length,
    closeCodes,
    subscriptionsHeld: await metric('reward_gateway_live_subscribers'),
    rss: `${mb(idleRss)} → ${mb(await metric('process_resident_memory_bytes'))}`,
    heapUsed: mb(await metric('nodejs_heap_size_used_bytes')),
  }),
);
for (const socket of sockets) socket.terminate();
gateway.kill('SIGTERM');
