import { ConfigError, loadConfig } from './config.js';
import { startSandbox, type RunningSandbox } from './sandbox/index.js';
import { createGateway } from './server.js';
import { upstreamClientFromConfig } from './upstream-from-config.js';

// Process entry: config → (embedded sandbox when no upstream is configured) → gateway → clean shutdown.

async function main(): Promise<void> {
  const config = loadConfig();

  let sandbox: RunningSandbox | null = null;
  let target: { baseUrl: string; token: string };
  if (config.REWARD_API_URL && config.REWARD_API_TOKEN) {
    target = { baseUrl: config.REWARD_API_URL, token: config.REWARD_API_TOKEN };
  } else {
    sandbox = await startSandbox({ port: config.SANDBOX_PORT, host: '127.0.0.1' });
    target = { baseUrl: sandbox.baseUrl, token: sandbox.token };
  }

  const client = upstreamClientFromConfig(config, target);
  const gateway = createGateway({ config, client });
  const url = await gateway.start();

  console.log(`reward-gateway listening on ${url}/graphql (GraphiQL in a browser at the same address)`);
  if (sandbox) {
    console.log(`No REWARD_API_URL set: using the embedded sandbox at ${sandbox.baseUrl}`);
    console.log(`Sandbox control API: ${sandbox.origin}/__sandbox/ (redeem, bounce, expire, top up, clock, faults)`);
    console.log(`Try: curl -s ${url}/graphql -H 'content-type: application/json' -d '{"query":"{ viewer { username } funds { balances { currency availableInCents } } }"}'`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: shutting down`);
    await gateway.stop();
    await client.close();
    await sandbox?.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
