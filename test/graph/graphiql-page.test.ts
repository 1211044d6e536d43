import { readdirSync, readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { test } from '../support/test.js';

// What a newcomer's browser gets: `/` leads to /graphql, the GraphiQL page arrives compressed and is
// revalidated rather than re-sent, and its subscriptions pass CSRF prevention without weakening it.

// Lifetime: the file. The file's gateway listening: `/` is answered outside yoga, and these tests read the
// bytes on the wire (compression, 304s).
const it = test.extend('url', { scope: 'file' }, ({ gateway }) => gateway.listen());

/** A raw GET (fetch would decompress and hide the encoding). */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(`${url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('GET /', () => {
  it('sends a browser on to GraphiQL', async ({ url }) => {
    const res = await rawGet(url, '/', { accept: 'text/html,application/xhtml+xml' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/graphql');
  });

  it('tells other clients where GraphQL is', async ({ url }) => {
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ graphql: '/graphql' });
  });
});

describe('the GraphiQL page', () => {
  const browser = { accept: 'text/html' };

  it('is compressed for clients that accept it, with cache validators', async ({ url }) => {
    const plain = await rawGet(url, '/graphql', { ...browser, 'accept-encoding': 'identity' });
    const gzipped = await rawGet(url, '/graphql', { ...browser, 'accept-encoding': 'gzip' });
    const brotli = await rawGet(url, '/graphql', { ...browser, 'accept-encoding': 'gzip, deflate, br' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(brotli.body.length).toBeLessThan(gzipped.body.length);
    for (const res of [plain, gzipped, brotli]) {
      expect(res.headers.etag).toBe(plain.headers.etag);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers.vary).toMatch(/accept-encoding/i);
    }
  });

  it('answers a revalidation with 304 and no body', async ({ url }) => {
    const first = await rawGet(url, '/graphql', browser);
    const again = await rawGet(url, '/graphql', { ...browser, 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('makes GraphiQL send the CSRF header, which its SSE subscriptions need', async ({ url }) => {
    const html = (await rawGet(url, '/graphql', browser)).body.toString();
    const config = /renderYogaGraphiQL\(\s*[^,]+,\s*(\{.*?\}),\s*\);/s.exec(html)?.[1];
    const headers = (JSON.parse(config!) as { additionalHeaders: Record<string, string> }).additionalHeaders;
    expect(Object.keys(headers)).toContain('x-graphql-yoga-csrf');

    // A subscription as GraphiQL sends it: a GET asking for an event stream, with the page's headers.
    const query = encodeURIComponent('subscription { fundsChanged { funds { balances { currency } } } }');
    const controller = new AbortController();
    const withHeader = await fetch(`${url}/graphql?query=${query}`, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    expect(withHeader.status).toBe(200);
    expect(withHeader.headers.get('content-type')).toMatch(/text\/event-stream/);
    controller.abort();

    // Another site's page is still refused (its browser says where the request comes from); keyless development
    // answers local tools and pages (test/clients/get-queries.test.ts).
    const without = await fetch(`${url}/graphql?query=${query}`, { headers: { accept: 'text/event-stream', 'sec-fetch-site': 'cross-site' } });
    expect(without.status).toBe(403);
  });
});

describe("GraphiQL's weight", () => {
  // The package renders a ~9 MB page from ~9 MB of strings; imported, the two cost the gateway ~140 MB of RSS
  // for good (`node --import tsx bench/memory.ts graphiql` measures the first load). So no module of the gateway
  // imports it, and the page is streamed from the files a child process rendered.
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    );

  it('is never imported by the gateway', () => {
    const importers = sources(join(root, 'src')).filter((file) =>
      /(from\s*|import\(\s*)['"]@graphql-yoga\/render-graphiql['"]/.test(readFileSync(file, 'utf8')),
    );
    expect(importers).toEqual([]);
  });

  it('is sent from its file on disk, byte for byte', async ({ url }) => {
    const served = await rawGet(url, '/graphql', { accept: 'text/html', 'accept-encoding': 'identity' });
    const cache = join(root, 'node_modules', '.cache', 'reward-gateway-graphiql');
    const pages = readdirSync(cache)
      .filter((dir) => !dir.includes('.staging-'))
      .map((dir) => readFileSync(join(cache, dir, 'page.html')));
    expect(pages.some((page) => page.equals(served.body))).toBe(true);
    expect(served.body.length).toBeGreaterThan(1_000_000);
  });
});
