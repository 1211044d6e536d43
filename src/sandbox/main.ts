// `npm run sandbox`: the sandbox alone, for curl and for pointing a gateway at it by hand.
import { listenFailure, StartUpFailure } from '../shared/listen-failure.js';
import { sandboxOptionsFromEnv } from './config.js';
import { startSandbox } from './index.js';

const config = sandboxOptionsFromEnv(process.env);
if (!config.ok) {
  console.error('sandbox: invalid configuration');
  for (const error of config.errors) console.error(`  ${error}`);
  process.exit(1);
}

const sandbox = await startSandbox(config.options).catch((error: unknown) => {
  const { port = 0, host = '127.0.0.1' } = config.options;
  const failure = listenFailure(error, { port, portVariable: 'SANDBOX_PORT', host, hostVariable: 'SANDBOX_HOST' });
  console.error(failure instanceof StartUpFailure ? `sandbox: ${failure.message}` : failure);
  process.exit(1);
});

console.log(`reward API sandbox listening
  base URL: ${sandbox.baseUrl}
  token:    ${sandbox.token}${config.fixedToken ? ' (from SANDBOX_TOKEN)' : ' (random; set SANDBOX_TOKEN to fix it)'}
  control:  ${sandbox.origin}/__sandbox/ (no token)

try:
  curl -H 'Authorization: Bearer ${sandbox.token}' ${sandbox.baseUrl}/ping`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\nsandbox: ${signal}, shutting down`);
  void sandbox.close().then(() => process.exit(0));
};
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
