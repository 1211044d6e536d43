import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { graphqlRequest } from './load.js';
import { freePort, ROOT, startSandboxProcess } from './processes.js';
import { FUNDS } from './scenarios/overhead.js';
import { AUTH_HEADERS, BENCH_KEY, productionNodeFlags } from './targets.js';
import { spread } from './stats.js';

// Compiled start to first answer: from spawning `node <start:prod flags> <entry>` (NODE_ENV=production, an API
// key, the sandbox as upstream) to the first complete `{ funds }` answer, polled every 5 ms. Each entry is
// started RUNS times, the entries in alternation; prints median [min–max] per entry.
// Usage: node --import tsx bench/first-answer.ts <entry> [<entry>…]   (FIRST_ANSWER_RUNS, default 7)

const entries = process.argv.slice(2);
if (entries.length === 0) throw new Error('usage: bench/first-answer.ts <entry> [<entry>…]');
const runs = Number(process.env.FIRST_ANSWER_RUNS ?? 7);

const sandbox = await startSandboxProcess({ latencyMs: 20, token: `first-${randomBytes(8).toString('hex')}`, balanceCents: 1_000_000 });
try {
  const times = entries.map(() => [] as number[]);
  for (let run = 0; run < runs; run++) {
    for (const [i, entry] of entries.entries()) {
      const port = await freePort();
      const started = performance.now();
      const child = spawn(process.execPath, [...productionNodeFlags(), entry], {
        cwd: ROOT,
        stdio: 'ignore',
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PORT: String(port),
          REWARD_API_URL: sandbox.baseUrl,
          REWARD_API_TOKEN: sandbox.token,
          GATEWAY_API_KEYS: JSON.stringify([{ name: 'bench', key: BENCH_KEY, scopes: ['rewards:read', 'funds:read'] }]),
          LOG_LEVEL: 'warn',
          CACHE_TTL_MS: '0',
        },
      });
      const request = graphqlRequest(FUNDS);
      try {
        for (;;) {
          const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
            method: 'POST',
            headers: { ...request.headers, ...AUTH_HEADERS },
            body: request.body,
          }).catch(() => null);
          if (answer?.ok && ((await answer.json()) as { data?: unknown }).data) break;
          if (performance.now() - started > 30_000) throw new Error(`${entry}: no answer within 30 s`);
          await new Promise((r) => setTimeout(r, 5));
        }
        times[i]!.push(performance.now() - started);
      } finally {
        child.kill('SIGKILL');
      }
    }
  }
  for (const [i, entry] of entries.entries()) {
    const xs = times[i]!;
    console.log(`${entry}: first answer ${spread(xs, 0)} ms over ${runs} starts`);
  }
} finally {
  await sandbox.stop();
}
