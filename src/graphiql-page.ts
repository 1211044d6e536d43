import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';

// The GraphiQL page: served from the package itself (no CDN, so it works offline), about 9 MB of HTML with
// the editor inlined. It never changes while the process runs, so it is compressed once per encoding (on
// first use, not at start-up: most starts never serve it) and revalidated by ETag instead of re-sent.

const FIRST_QUERY = `# Welcome to reward-gateway. Try:
{
  viewer { username displayName }
  funds { balances { currency availableInCents reservedInCents } }
  brands(first: 5) { totalCount edges { node { brandCode name currency } } }
}
`;

export const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: 'reward-gateway',
  defaultQuery: FIRST_QUERY,
  // GraphiQL sends subscriptions as SSE GETs, which CSRF prevention refuses without a custom header. Only a
  // script on this origin can set one (cross-site it needs a CORS preflight the gateway does not grant), so
  // the page served here sending it proves what the check wants; other clients are checked as before.
  additionalHeaders: { 'x-graphql-yoga-csrf': 'graphiql' },
};

type Encoding = 'br' | 'gzip' | 'identity';

const compressors: Record<Exclude<Encoding, 'identity'>, (html: string) => Promise<Buffer>> = {
  // Quality 5: within 15% of the best ratio at a thirtieth of the time (9 MB in ~3 s rather than ~90 s).
  br: (html) =>
    promisify(brotliCompress)(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html) } }),
  gzip: (html) => promisify(gzip)(html),
};

/** The best encoding the client accepts (q=0 means refused). */
function negotiate(acceptEncoding: string | null): Encoding {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !q || !/^\s*q=0(\.0*)?\s*$/.test(q))
      .map(([name]) => name!.trim().toLowerCase()),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return 'identity';
}

export interface GraphiqlPage {
  /** Yoga's `renderGraphiQL`: renders once and remembers the page. */
  render(options: GraphiQLOptions): Promise<string>;
  /** Replaces yoga's uncompressed page response with the cached, compressed, revalidatable one. */
  plugin: Plugin;
}

export function createGraphiqlPage(): GraphiqlPage {
  let page: { html: string; etag: string; encoded: Map<Encoding, Promise<Uint8Array<ArrayBuffer>>> } | null = null;

  function encoded(encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
    const { html, encoded: cache } = page!;
    let body = cache.get(encoding);
    if (!body) {
      const bytes = encoding === 'identity' ? Promise.resolve(Buffer.from(html)) : compressors[encoding](html);
      // Copied once into a plain Uint8Array: what a fetch Response body takes.
      body = bytes.then((buffer) => new Uint8Array(buffer));
      cache.set(encoding, body);
    }
    return body;
  }

  return {
    async render(options) {
      if (!page) {
        // Imported on the first page only: the bundle is about 30 MB of heap, most of an idle gateway's.
        const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
        const html = renderGraphiQL(options);
        page = { html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`, encoded: new Map() };
      }
      return page.html;
    },
    plugin: {
      async onResponse({ request, response, setResponse, fetchAPI }) {
        if (!page || request.method !== 'GET' || !response.headers.get('content-type')?.startsWith('text/html')) return;
        await response.body?.cancel();
        // no-cache: the browser keeps the page but asks each time; a 304 costs a few bytes, and a restarted
        // gateway with another GraphiQL is picked up at once.
        const headers = { etag: page.etag, 'cache-control': 'no-cache', vary: 'accept-encoding' };
        if (request.headers.get('if-none-match') === page.etag) {
          setResponse(new fetchAPI.Response(null, { status: 304, headers }));
          return;
        }
        const encoding = negotiate(request.headers.get('accept-encoding'));
        const body = await encoded(encoding);
        setResponse(
          new fetchAPI.Response(body, {
            status: 200,
            headers: {
              ...headers,
              'content-type': 'text/html; charset=utf-8',
              'content-length': String(body.length),
              ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
            },
          }),
        );
      },
    },
  };
}
