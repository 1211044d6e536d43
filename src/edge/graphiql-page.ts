import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';

// The GraphiQL page: served from the package itself (no CDN, so it works offline), about 9 MB of HTML with
// the editor inlined. Imported into the gateway, that package's strings and the page rendered from them cost
// ~140 MB of resident set for the rest of the process's life, for a page most processes never serve. So the
// gateway never imports it: on the first page, a short-lived `node` renders the page and compresses it into
// files, and every request streams the file for its encoding from disk, revalidated by ETag. The files are
// kept in node_modules/.cache (one directory per package version and page options, so the next start serves
// them at once), or in a private temporary directory removed at exit where node_modules is read-only (a
// container).

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

const FILES: Record<Encoding, string> = { identity: 'page.html', gzip: 'page.html.gz', br: 'page.html.br' };

/**
 * Run by the child `node` (CommonJS, `-e`): argv is the package's entry, the directory to write to, and the
 * options as JSON. Brotli at quality 5: within 15% of the best ratio at a thirtieth of the time (9 MB in ~3 s
 * rather than ~90 s).
 */
const RENDER_SCRIPT = `
const [entry, dir, options] = process.argv.slice(1);
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { createHash } = require('node:crypto');
const { gzipSync, brotliCompressSync, constants } = require('node:zlib');
const html = Buffer.from(require(entry).renderGraphiQL(JSON.parse(options)));
writeFileSync(join(dir, ${JSON.stringify(FILES.identity)}), html);
writeFileSync(join(dir, ${JSON.stringify(FILES.gzip)}), gzipSync(html));
writeFileSync(join(dir, ${JSON.stringify(FILES.br)}), brotliCompressSync(html, {
  params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: html.length },
}));
writeFileSync(join(dir, 'etag'), '"' + createHash('sha256').update(html).digest('base64url').slice(0, 27) + '"');
`;

/** The rendered page on disk: where its files are and what each weighs. */
export interface PageFiles {
  dir: string;
  etag: string;
  sizes: Record<Encoding, number>;
}

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

const isErrno = (error: unknown, ...codes: string[]) => codes.includes((error as NodeJS.ErrnoException | null)?.code ?? '');

/** A directory holding the page's files, as written; null when it is absent or incomplete. */
async function readPage(dir: string): Promise<PageFiles | null> {
  try {
    const etag = await readFile(join(dir, 'etag'), 'utf8');
    const sizes = {} as Record<Encoding, number>;
    for (const [encoding, file] of Object.entries(FILES)) sizes[encoding as Encoding] = (await stat(join(dir, file))).size;
    return { dir, etag, sizes };
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw error;
  }
}

/** The private fallback directory of this process, removed when it exits. */
let privateDir: Promise<string> | null = null;
function processDir(): Promise<string> {
  return (privateDir ??= mkdtemp(join(tmpdir(), 'reward-gateway-graphiql-')).then((dir) => {
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }));
}

/** Renders the page for `options` into files, or finds them rendered by an earlier start. */
export async function renderPageFiles(options: GraphiQLOptions): Promise<PageFiles> {
  const entry = createRequire(import.meta.url).resolve('@graphql-yoga/render-graphiql');
  const modules = entry.slice(0, entry.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules`.length);
  const { version } = JSON.parse(await readFile(join(entry, '..', '..', 'package.json'), 'utf8')) as { version: string };
  const json = JSON.stringify(options);
  const key = createHash('sha256').update(`${version}\0${json}\0${RENDER_SCRIPT}`).digest('hex').slice(0, 16);

  // Written aside and renamed into place, so a directory under its final name is always complete (another
  // replica on the same machine may be writing the same page).
  const stage = async (parent: string) => {
    await mkdir(parent, { recursive: true });
    return { dir: join(parent, key), staging: await mkdtemp(join(parent, `${key}.staging-`)) };
  };
  const shared = join(modules, '.cache', 'reward-gateway-graphiql');
  let target;
  try {
    target = (await readPage(join(shared, key))) ?? (await stage(shared));
  } catch (error) {
    if (!isErrno(error, 'EACCES', 'EPERM', 'EROFS')) throw error;
    const own = await processDir();
    target = (await readPage(join(own, key))) ?? (await stage(own));
  }
  if ('etag' in target) return target;
  const { dir, staging } = target;
  try {
    await promisify(execFile)(process.execPath, ['-e', RENDER_SCRIPT, entry, staging, json], { env: {} });
    await rename(staging, dir).catch((error: unknown) => {
      if (!isErrno(error, 'EEXIST', 'ENOTEMPTY')) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const page = await readPage(dir);
  if (!page) throw new Error(`GraphiQL's page was not written to ${dir}`);
  return page;
}

export interface GraphiqlPage {
  /** Yoga's `renderGraphiQL`: makes sure the page's files exist; the plugin sends them. */
  render(options: GraphiQLOptions): Promise<string>;
  /** Replaces yoga's page response with the page's file for the accepted encoding, revalidatable. */
  plugin: Plugin;
}

export function createGraphiqlPage(): GraphiqlPage {
  let options: GraphiQLOptions | null = null;
  let page: Promise<PageFiles> | null = null;
  const files = () =>
    (page ??= renderPageFiles(options!).catch((error: unknown) => {
      page = null;
      throw error;
    }));

  return {
    async render(given) {
      options = given;
      await files();
      // Never sent: the plugin below answers with the file instead.
      return '<!doctype html><title>GraphiQL</title>';
    },
    plugin: {
      async onResponse({ request, response, setResponse, fetchAPI }) {
        if (!page || request.method !== 'GET' || !response.headers.get('content-type')?.startsWith('text/html')) return;
        await response.body?.cancel();
        let current = await files();
        // no-cache: the browser keeps the page but asks each time; a 304 costs a few bytes, and a restarted
        // gateway with another GraphiQL is picked up at once.
        const headers = { etag: current.etag, 'cache-control': 'no-cache', vary: 'accept-encoding' };
        if (request.headers.get('if-none-match') === current.etag) {
          setResponse(new fetchAPI.Response(null, { status: 304, headers }));
          return;
        }
        const encoding = negotiate(request.headers.get('accept-encoding'));
        let handle;
        try {
          handle = await open(join(current.dir, FILES[encoding]));
        } catch (error) {
          // The cache was cleared under the running process (npm ci, a tmp cleaner): render it again, once.
          if (!isErrno(error, 'ENOENT')) throw error;
          page = null;
          current = await files();
          handle = await open(join(current.dir, FILES[encoding]));
        }
        const body = Readable.toWeb(handle.createReadStream()) as ReadableStream<Uint8Array>;
        setResponse(
          new fetchAPI.Response(body, {
            status: 200,
            headers: {
              ...headers,
              etag: current.etag,
              'content-type': 'text/html; charset=utf-8',
              'content-length': String(current.sizes[encoding]),
              ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
            },
          }),
        );
      },
    },
  };
}
