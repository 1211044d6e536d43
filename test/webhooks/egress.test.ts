import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../src/webhooks/attempt.js';
import type { ResolvedAddress } from '../../src/webhooks/egress-policy.js';
import { createWebhookEgress } from '../../src/webhooks/egress.js';
import { RECEIVER_TEST_CERT, RECEIVER_TEST_KEY } from './self-signed.js';

// The egress against real loopback receivers. DNS is outside the test's reach, so names resolve through an
// injected resolver whose answers a test sets (and changes, to stand for a rebinding DNS server); connections
// are real, so where a request lands is what the receiver saw.

interface Seen {
  host: string | undefined;
  path: string | undefined;
  body: string;
  headers: IncomingMessage['headers'];
}

/** A loopback HTTP server whose answer a test sets; it records every request it receives. */
async function startReceiver() {
  const seen: Seen[] = [];
  let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok');
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ host: req.headers.host, path: req.url, body: Buffer.concat(chunks).toString(), headers: req.headers });
      answer(req, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    seen,
    answer(handler: typeof answer) {
      answer = handler;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A port nothing listens on: one the system handed out and then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** A resolver a test answers for: name → addresses. */
function fakeDns(answers: Record<string, string[]>) {
  const table = new Map(Object.entries(answers));
  const asked: string[] = [];
  return {
    asked,
    set(name: string, addresses: string[]) {
      table.set(name, addresses);
    },
    lookup: async (name: string): Promise<ResolvedAddress[]> => {
      asked.push(name);
      const addresses = table.get(name);
      if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
}

const post = (url: string, timeoutMs = 5000) => ({
  url,
  headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
  body: '{"type":"orderChanged"}',
  timeoutMs,
});

describe('webhook egress', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const egresses: ReturnType<typeof createWebhookEgress>[] = [];
  const egress = (options: Parameters<typeof createWebhookEgress>[0]) => {
    const created = createWebhookEgress(options);
    egresses.push(created);
    return created;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await Promise.all(egresses.map((e) => e.close()));
    await receiver.close();
  });
  afterEach(() => {
    receiver.seen.length = 0;
    receiver.answer((_req, res) => res.end('ok'));
  });

  describe('registration (check)', () => {
    const dns = fakeDns({
      'intranet.example': ['10.0.0.1'],
      'metadata.example': ['169.254.169.254'],
      'mixed.example': ['93.184.215.14', '192.168.1.10'],
      'public.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
    const checker = () => egress({ allowedHosts: ['127.0.0.1'], requireHttps: false, lookup: dns.lookup });

    it.each([
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
      ['http://10.0.0.1/hook', '10.0.0.1 is a private address'],
      ['http://[::1]/hook', '::1 is a loopback address'],
      ['http://127.0.0.2/hook', '127.0.0.2 is a loopback address'],
      ['http://0.0.0.0/hook', '0.0.0.0 is an unspecified address'],
      ['http://[::]/hook', ':: is an unspecified address'],
    ])('refuses %s', async (url, reason) => {
      const verdict = await checker().check(url);
      expect(verdict).toEqual({ ok: false, rule: 'forbidden-address', message: expect.stringContaining(reason) });
      if (!verdict.ok) expect(verdict.message).toContain('WEBHOOK_ALLOWED_HOSTS');
    });

    it('refuses a name resolving to a forbidden address exactly as one that does not resolve, naming no address', async () => {
      // Otherwise the refusal is an oracle of the gateway's DNS: which internal names exist, and where they point.
      const check = checker().check;
      const verdicts = await Promise.all(
        // One forbidden address among public ones is enough: a connection could use any of them.
        ['intranet.example', 'metadata.example', 'mixed.example', 'nowhere.example'].map(async (host) => ({
          host,
          verdict: await check(`http://${host}/hook`),
        })),
      );
      const alike = verdicts.map(({ host, verdict }) => (verdict.ok ? verdict : { ...verdict, message: verdict.message.replaceAll(host, '<host>') }));
      expect(new Set(alike.map((v) => JSON.stringify(v))).size).toBe(1);
      expect(alike[0]).toEqual({ ok: false, rule: 'forbidden-address', message: expect.stringContaining('WEBHOOK_ALLOWED_HOSTS') });
      for (const { verdict } of verdicts) {
        expect(verdict.ok || verdict.message).not.toMatch(/10\.0\.0\.1|169\.254|192\.168|93\.184|ENOTFOUND/);
      }
    });

    it.each([
      ['http://[::ffff:127.0.0.1]/hook', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
      ['http://[::ffff:7f00:2]/hook', 'an IPv4-mapped form of 127.0.0.2, a loopback address'],
      ['http://[::ffff:a9fe:a9fe]/hook', 'an IPv4-mapped form of 169.254.169.254, a link-local address'],
      ['http://[::127.0.0.1]/hook', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
      ['http://[64:ff9b::10.0.0.1]/hook', 'a NAT64 form of 10.0.0.1, a private address'],
      ['http://[fd00::1]/hook', 'a unique-local (private IPv6) address'],
      ['http://[fe80::1]/hook', 'a link-local address'],
      ['http://[ff02::1]/hook', 'a multicast address'],
      ['http://224.0.0.1/hook', 'a multicast address'],
      ['http://255.255.255.255/hook', 'the broadcast address'],
      ['http://100.64.0.1/hook', 'a carrier-grade NAT (shared) address'],
      ['http://192.0.2.1/hook', 'a reserved or documentation address'],
      ['http://[2001:db8::1]/hook', 'a reserved or documentation address'],
      // URLs spell addresses many ways; WHATWG URL reads them all as the address they are.
      ['http://0x7f.1/hook', '127.0.0.1 is a loopback address'],
      ['http://2130706433/hook', '127.0.0.1 is a loopback address'],
    ])('refuses %s (IPv6 forms and other special ranges)', async (url, reason) => {
      const verdict = await egress({ allowedHosts: [], requireHttps: false }).check(url);
      expect(verdict).toEqual({ ok: false, rule: 'forbidden-address', message: expect.stringContaining(reason) });
    });

    it('tells operators, at debug level, what a refused name resolved to or why it did not', async () => {
      const lines: { obj: object; msg: string }[] = [];
      const logger = { debug: (obj: object, msg: string) => void lines.push({ obj, msg }) };
      const { check } = egress({ allowedHosts: [], requireHttps: false, lookup: dns.lookup, logger });
      await check('http://intranet.example/hook');
      await check('http://nowhere.example/hook');
      expect(lines).toEqual([
        {
          obj: { host: 'intranet.example', address: '10.0.0.1', kind: 'a private address' },
          msg: 'webhooks: a host name refused by the address policy',
        },
        { obj: { host: 'nowhere.example', error: expect.stringContaining('ENOTFOUND') }, msg: 'webhooks: a host name refused by the address policy' },
      ]);
    });

    it('accepts public addresses, names resolving only to them, and NAT64 forms of public IPv4', async () => {
      const check = checker().check;
      expect(await check('http://public.example/hook')).toEqual({ ok: true });
      expect(await check('http://93.184.215.14/hook')).toEqual({ ok: true });
      expect(await check('http://[64:ff9b::5db8:d70e]/hook')).toEqual({ ok: true });
    });

    it('exempts exactly the listed hosts and addresses', async () => {
      const check = egress({
        allowedHosts: ['127.0.0.1', 'Intranet.Example.', '[::1]'],
        requireHttps: false,
        lookup: dns.lookup,
      }).check;
      expect(await check('http://127.0.0.1:8080/hook')).toEqual({ ok: true });
      expect(await check('http://127.0.0.2/hook')).toMatchObject({ ok: false, rule: 'forbidden-address' });
      expect(await check('http://[::ffff:127.0.0.1]/hook')).toMatchObject({ ok: false, rule: 'forbidden-address' });
      expect(await check('http://intranet.example/hook')).toEqual({ ok: true });
      expect(await check('http://INTRANET.example./hook')).toEqual({ ok: true });
      expect(await check('http://metadata.example/hook')).toMatchObject({ ok: false, rule: 'forbidden-address' });
      expect(await check('http://[0:0::1]/hook')).toEqual({ ok: true });
    });

    it('an allowed address exempts that address whatever name points at it', async () => {
      dns.set('loopback-name.example', ['127.0.0.1']);
      const check = checker().check;
      expect(await check('http://loopback-name.example/hook')).toEqual({ ok: true });
      dns.set('loopback-name.example', ['127.0.0.1', '127.0.0.2']);
      expect(await check('http://loopback-name.example/hook')).toMatchObject({ ok: false, rule: 'forbidden-address' });
    });

    it('requires https when told to, even for allowed hosts', async () => {
      const check = egress({ allowedHosts: ['127.0.0.1'], requireHttps: true, lookup: dns.lookup }).check;
      const verdict = await check('http://public.example/hook?token=s3cret');
      expect(verdict).toMatchObject({ ok: false, rule: 'https-required' });
      if (!verdict.ok) expect(verdict.message).not.toContain('s3cret');
      expect(await check('http://127.0.0.1/hook')).toMatchObject({ ok: false, rule: 'https-required' });
      expect(await check('https://public.example/hook')).toEqual({ ok: true });
    });

    it('refuses credentials in the URL, other schemes, and what is not a URL, without echoing them', async () => {
      const check = checker().check;
      const withCredentials = await check('https://alice:hunter2@public.example/hook');
      expect(withCredentials).toMatchObject({ ok: false, rule: 'credentials' });
      if (!withCredentials.ok) expect(withCredentials.message).not.toMatch(/hunter2|alice/);
      expect(await check('ftp://public.example/hook')).toMatchObject({ ok: false, rule: 'scheme' });
      expect(await check('file:///etc/passwd')).toMatchObject({ ok: false, rule: 'scheme' });
      expect(await check('not a url')).toMatchObject({ ok: false, rule: 'invalid-url' });
    });

    it('resolves through the system by default: localhost is loopback', async () => {
      expect(await egress({ allowedHosts: [], requireHttps: false }).check('http://localhost/hook')).toMatchObject({
        ok: false,
        rule: 'forbidden-address',
        message: expect.stringMatching(/^localhost does not resolve to public addresses only/),
      });
    });

    it('accepts ports 443 and 80 on public addresses, and those of WEBHOOK_ALLOWED_PORTS', async () => {
      const check = checker().check;
      for (const url of [
        'https://public.example/hook',
        'http://public.example/hook',
        'http://public.example:443/hook',
        'https://93.184.215.14:80/',
      ]) {
        expect(await check(url), url).toEqual({ ok: true });
      }
      for (const port of [6379, 25, 22, 2375, 8443]) {
        const verdict = await check(`https://public.example:${port}/hook`);
        expect(verdict, String(port)).toEqual({ ok: false, rule: 'port', message: expect.stringContaining(`port ${port}`) });
        if (!verdict.ok) expect(verdict.message).toContain('WEBHOOK_ALLOWED_PORTS');
      }
      const wider = egress({ allowedHosts: [], allowedPorts: [8443], requireHttps: false, lookup: dns.lookup }).check;
      expect(await wider('https://public.example:8443/hook')).toEqual({ ok: true });
      expect(await wider('https://public.example/hook')).toEqual({ ok: true });
      expect(await wider('https://public.example:6379/hook')).toMatchObject({ ok: false, rule: 'port' });
    });

    it('a listed host or address is reached on any port, and so is a name pointing at listed addresses only', async () => {
      dns.set('loopback-name.example', ['127.0.0.1']);
      dns.set('half-listed.example', ['127.0.0.1', '93.184.215.14']);
      const check = checker().check;
      expect(await check('http://127.0.0.1:6379/hook')).toEqual({ ok: true });
      expect(await check('http://loopback-name.example:6379/hook')).toEqual({ ok: true });
      expect(await check('http://half-listed.example:6379/hook')).toMatchObject({ ok: false, rule: 'port' });
      expect(await check('http://half-listed.example/hook')).toEqual({ ok: true });
    });
  });

  describe('delivery (send)', () => {
    it('delivers to an allowed 127.0.0.1 and answers its status and body', async () => {
      const send = egress({ allowedHosts: ['127.0.0.1'], requireHttps: false }).send;
      receiver.answer((_req, res) => {
        res.statusCode = 202;
        res.end('accepted');
      });
      const outcome = await send(post(`http://127.0.0.1:${receiver.port}/hooks/a?x=1`));
      expect(outcome).toMatchObject({ kind: 'answered', status: 202, bodyExcerpt: 'accepted' });
      expect(receiver.seen).toEqual([expect.objectContaining({ path: '/hooks/a?x=1', body: '{"type":"orderChanged"}' })]);
      expect(receiver.seen[0]?.headers).toMatchObject({ 'webhook-id': 'msg_1', connection: 'close' });
    });

    it('connects to the address that was checked, with the name as Host', async () => {
      const dns = fakeDns({ 'receiver.test': ['127.0.0.1'] });
      const send = egress({ allowedHosts: ['receiver.test'], requireHttps: false, lookup: dns.lookup }).send;
      const outcome = await send(post(`http://receiver.test:${receiver.port}/hook`));
      expect(outcome).toMatchObject({ kind: 'answered', status: 200 });
      expect(receiver.seen.map((s) => s.host)).toEqual([`receiver.test:${receiver.port}`]);
      // One lookup, the policy's: the connection asked no resolver of its own (the system's does not know
      // receiver.test, so a second lookup would have failed the attempt).
      expect(dns.asked).toEqual(['receiver.test']);
    });

    it('tries every checked address of a name, and only those', async () => {
      // Nothing listens on 127.0.0.3 (the receiver binds 127.0.0.1): the connection falls back to the next
      // checked address, as Happy Eyeballs would between IPv6 and IPv4.
      const dns = fakeDns({ 'receiver.test': ['127.0.0.3', '127.0.0.1'] });
      const send = egress({ allowedHosts: ['receiver.test'], requireHttps: false, lookup: dns.lookup }).send;
      expect(await send(post(`http://receiver.test:${receiver.port}/hook`))).toMatchObject({ kind: 'answered' });
      expect(receiver.seen).toHaveLength(1);
      dns.set('receiver.test', ['127.0.0.3']);
      const outcome = await send(post(`http://receiver.test:${receiver.port}/hook`));
      expect(outcome).toMatchObject({
        kind: 'failed',
        reason: 'connection',
        message: expect.stringContaining('receiver.test (127.0.0.3)'),
      });
    });

    it('verifies the certificate for the name over https (sent as SNI to the checked address)', async () => {
      const servernames: string[] = [];
      const server = createTlsServer({
        key: RECEIVER_TEST_KEY,
        cert: RECEIVER_TEST_CERT,
        SNICallback: (servername, callback) => {
          servernames.push(servername);
          callback(null);
        },
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const { port } = server.address() as AddressInfo;
        const dns = fakeDns({ 'receiver.test': ['127.0.0.1'] });
        const send = egress({ allowedHosts: ['receiver.test'], requireHttps: true, lookup: dns.lookup }).send;
        // The certificate is for receiver.test but signed by nobody this process trusts: refused by TLS.
        expect(await send(post(`https://receiver.test:${port}/hook`))).toMatchObject({
          kind: 'failed',
          reason: 'connection',
          message: expect.stringMatching(/self[- ]signed/),
        });
        expect(servernames).toEqual(['receiver.test']);
        expect(dns.asked).toEqual(['receiver.test']);
      } finally {
        server.close();
      }
    });

    it('refuses at delivery a name that resolves somewhere forbidden since registration', async () => {
      const dns = fakeDns({ 'rebind.example': ['93.184.215.14'] });
      const { check, send } = egress({ allowedHosts: ['127.0.0.1'], allowedPorts: [receiver.port], requireHttps: false, lookup: dns.lookup });
      expect(await check(`http://rebind.example:${receiver.port}/hook`)).toEqual({ ok: true });
      dns.set('rebind.example', ['10.0.0.1']);
      const outcome = await send(post(`http://rebind.example:${receiver.port}/hook`));
      expect(outcome).toMatchObject({
        kind: 'refused',
        rule: 'forbidden-address',
        message: expect.stringContaining('rebind.example does not resolve to public addresses only'),
      });
      // The attempt's error is the endpoint owner's to read: it names no address, and a name gone from DNS reads
      // the same, so deliveries are no oracle either.
      expect(outcome.kind === 'refused' && outcome.message).not.toContain('10.0.0.1');
      dns.set('rebind.example', []);
      const gone = await send(post(`http://rebind.example:${receiver.port}/hook`));
      expect(gone).toEqual({ ...outcome, durationMs: expect.any(Number) });
      // A rebinding to a loopback address that is not the allowed one is refused too, and nothing is sent.
      dns.set('rebind.example', ['127.0.0.2']);
      expect(await send(post(`http://rebind.example:${receiver.port}/hook`))).toMatchObject({ kind: 'refused' });
      expect(receiver.seen).toEqual([]);
    });

    it('does not follow redirects: a 3xx is the answer', async () => {
      receiver.answer((_req, res) => {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        res.end();
      });
      const send = egress({ allowedHosts: ['127.0.0.1'], requireHttps: false }).send;
      const outcome = await send(post(`http://127.0.0.1:${receiver.port}/hook`));
      expect(outcome).toMatchObject({ kind: 'answered', status: 302 });
      expect(receiver.seen).toHaveLength(1);
    });

    it('reads only the first bytes of a large body, then drops the connection', async () => {
      let closed: Promise<unknown> = Promise.resolve();
      receiver.answer((req, res) => {
        closed = once(res, 'close');
        res.writeHead(200, { 'content-type': 'text/plain' });
        // A body that never ends: the attempt must end on its own bound, not on the receiver.
        const chunk = 'x'.repeat(16 * 1024);
        const pump = () => {
          while (res.write(chunk));
        };
        res.on('drain', pump);
        pump();
        req.socket.on('error', () => {});
      });
      const send = egress({ allowedHosts: ['127.0.0.1'], requireHttps: false, maxResponseBytes: 100 }).send;
      const outcome = await send(post(`http://127.0.0.1:${receiver.port}/hook`, 60_000));
      expect(outcome).toMatchObject({ kind: 'answered', status: 200, bodyExcerpt: 'x'.repeat(100) });
      await closed;
    });

    it('times out a receiver that does not answer', async () => {
      receiver.answer(() => {});
      const send = egress({ allowedHosts: ['127.0.0.1'], requireHttps: false }).send;
      const outcome = await send(post(`http://127.0.0.1:${receiver.port}/hook`, 200));
      expect(outcome).toMatchObject({ kind: 'failed', reason: 'timeout' });
      expect((outcome as Extract<AttemptOutcome, { kind: 'failed' }>).message).toContain('did not answer within 200 ms');
    });

    it('counts a resolver that does not answer against the same deadline', async () => {
      const lookup = () => new Promise<ResolvedAddress[]>(() => {});
      const send = egress({ allowedHosts: [], requireHttps: false, lookup }).send;
      expect(await send(post('http://slow-dns.example/hook', 100))).toMatchObject({
        kind: 'failed',
        reason: 'timeout',
        message: expect.stringContaining('slow-dns.example did not answer within 100 ms'),
      });
    });

    it('fails a connection that is refused', async () => {
      const port = await closedPort();
      const send = egress({ allowedHosts: ['127.0.0.1'], requireHttps: false }).send;
      const outcome = await send(post(`http://127.0.0.1:${port}/hook`));
      expect(outcome).toMatchObject({ kind: 'failed', reason: 'connection', message: expect.stringContaining('ECONNREFUSED') });
    });

    it('stops when the caller aborts', async () => {
      receiver.answer(() => {});
      const send = egress({ allowedHosts: ['127.0.0.1'], requireHttps: false }).send;
      const controller = new AbortController();
      const attempt = send({ ...post(`http://127.0.0.1:${receiver.port}/hook`, 60_000), signal: controller.signal });
      await expect.poll(() => receiver.seen.length).toBe(1);
      controller.abort();
      expect(await attempt).toMatchObject({ kind: 'failed', reason: 'connection', message: expect.stringContaining('stopped') });
    });

    it('close() ends the attempts under way, and no attempt starts after it', async () => {
      receiver.answer(() => {});
      const { send, close } = egress({ allowedHosts: ['127.0.0.1'], requireHttps: false });
      const attempt = send(post(`http://127.0.0.1:${receiver.port}/hook`, 60_000));
      await expect.poll(() => receiver.seen.length).toBe(1);
      await close();
      expect(await attempt).toMatchObject({ kind: 'failed', reason: 'connection' });
      expect(await send(post(`http://127.0.0.1:${receiver.port}/hook`))).toMatchObject({
        kind: 'failed',
        message: expect.stringContaining('shutting down'),
      });
      expect(receiver.seen).toHaveLength(1);
    });

    it('refuses at delivery what registration would refuse, before connecting', async () => {
      const { send } = egress({ allowedHosts: ['127.0.0.1'], requireHttps: true });
      expect(await send(post(`http://127.0.0.1:${receiver.port}/hook`))).toMatchObject({
        kind: 'refused',
        rule: 'https-required',
      });
      expect(await send(post(`http://[::ffff:127.0.0.1]:${receiver.port}/hook`))).toMatchObject({ kind: 'refused' });
      expect(receiver.seen).toEqual([]);
    });

    it('refuses a name that stops resolving as one that points inside (retried all the same: it may come back)', async () => {
      const dns = fakeDns({ 'inside.example': ['10.0.0.1'] });
      const send = egress({ allowedHosts: [], requireHttps: false, lookup: dns.lookup }).send;
      const gone = await send(post('http://gone.example/hook'));
      expect(gone).toMatchObject({
        kind: 'refused',
        rule: 'forbidden-address',
        message: expect.stringContaining('gone.example does not resolve to public'),
      });
      const inside = await send(post('http://inside.example/hook'));
      expect(inside.kind === 'refused' && inside.message.replaceAll('inside.example', 'gone.example')).toBe(gone.kind === 'refused' && gone.message);
    });
  });
});
