import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

// A webhook receiver to try webhooks locally (docs/webhooks.md, "Try it offline"): checks each delivery's
// Standard Webhooks signature over the raw body, prints the event and answers 204; a bad signature gets 401.
// `--events <n>` exits after n verified events.
const { values } = parseArgs({ options: { port: { type: 'string', default: '4020' }, events: { type: 'string' } } });
const webhook = new Webhook(process.env.REWARD_WEBHOOK_SECRET ?? ''); // the endpoint's whsec_… secret
let left = values.events ? Number(values.events) : Infinity;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const event = webhook.verify(Buffer.concat(chunks).toString(), req.headers as Record<string, string>) as { type: string; data: unknown };
      console.log('verified', event.type, JSON.stringify(event.data));
      res.writeHead(204).end(() => --left <= 0 && server.close() && server.closeAllConnections());
    } catch (error) {
      console.log('refused:', (error as Error).message);
      res.writeHead(401).end();
    }
  });
});
server.listen(Number(values.port), '127.0.0.1', () => console.log(`receiving on http://127.0.0.1:${values.port}/`));
