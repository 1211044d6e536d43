import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, type Failure, type GatewayCode } from '../../src/errors/catalogue.js';
import * as closeCodes from '../../src/errors/close-codes.js';
import { CLOSE_CODES } from '../../src/errors/close-codes.js';
import { describeFailure, errorBody, gatewayError } from '../../src/errors/gateway-error.js';
import { LIBRARY_CODES } from '../../src/errors/library-codes.js';
import { printErrorDocs } from '../../src/errors/print-docs.js';
import { schema } from '../../src/schema/index.js';
import { bearer, KEYS, KEYS_ENV } from '../security/keys.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// One table owns every error code: what the source raises, what the schema's descriptions mention and what
// docs/errors.md lists must all be in it, and everything in it must be raised somewhere.

const root = fileURLToPath(new URL('../../', import.meta.url));
const entries = Object.entries(CATALOGUE) as unknown as [GatewayCode, Failure<unknown>][];
const known = new Set<string>([...Object.keys(CATALOGUE), ...Object.keys(LIBRARY_CODES)]);

function sources(dir: string): { path: string; text: string }[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ path: join(dir, file), text: readFileSync(join(root, dir, file), 'utf8') }));
}

const CODE_LIKE = /'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)'/g;
const quoted = (text: string) => [...text.matchAll(CODE_LIKE)].map((m) => m[1]!);

/** The reward API's vocabulary (its error codes, fee types…): every code-like literal of the embedded sandbox. */
const upstreamWords = new Set(sources('src/sandbox').flatMap(({ text }) => quoted(text)));
const gatewaySources = sources('src').filter(({ path }) => !path.startsWith(join('src', 'sandbox')) && !path.startsWith(join('src', 'errors')));

/**
 * Every code the gateway's source raises, with where: the value or type of a `code` property (`code: 'X'`,
 * `code: 'X' | 'Y'`), and the first argument of the raising helpers (the catalogue's, and
 * use-operation-limits.ts's reportAs for graphql-armor's refusals).
 */
function raisedCodes(): Map<string, string[]> {
  const patterns = [
    /\bcode\??:\s*('[A-Z][A-Z0-9_]*'(?:\s*\|\s*'[A-Z][A-Z0-9_]*')*)/g,
    /\b(?:gatewayError|gatewayHint|describeFailure|reportAs)\(\s*('[A-Z][A-Z0-9_]*')/g,
  ];
  const found = new Map<string, string[]>();
  for (const { path, text } of gatewaySources) {
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        const line = text.slice(0, match.index).split('\n').length;
        for (const code of quoted(match[1]!)) {
          if (upstreamWords.has(code)) continue;
          found.set(code, [...(found.get(code) ?? []), `${relative('.', path)}:${line}`]);
        }
      }
    }
  }
  return found;
}

describe('the failure catalogue', () => {
  it('docs/errors.md is printed from it (run `npm run docs:errors`)', () => {
    expect(readFileSync(join(root, 'docs/errors.md'), 'utf8')).toBe(printErrorDocs(schema));
  });

  it('holds every code the source raises, and every code in it is raised somewhere', () => {
    const raised = raisedCodes();
    const unknown = [...raised].filter(([code]) => !known.has(code)).map(([code, at]) => `${code} (${at.join(', ')})`);
    expect(unknown).toEqual([]);
    expect(Object.keys(CATALOGUE).filter((code) => !raised.has(code))).toEqual([]);
  });

  it("holds every code the schema's descriptions mention", () => {
    const sdl = buildSchema(readFileSync(join(root, 'schema.graphql'), 'utf8'));
    const enumValues = new Set<string>();
    const descriptions: string[] = [];
    for (const type of Object.values(sdl.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      descriptions.push(type.description ?? '');
      if (isEnumType(type)) {
        for (const value of type.getValues()) {
          enumValues.add(value.name);
          descriptions.push(value.description ?? '');
        }
      }
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          descriptions.push(field.description ?? '');
          if ('args' in field) descriptions.push(...field.args.map((arg: { description?: string | null }) => arg.description ?? ''));
        }
      }
    }
    const words = descriptions.flatMap((text) => [...text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((m) => m[0]));
    expect(words).toContain('CURSOR_EXPIRED');
    // What is neither an enum value nor the reward API's word is a code a client is told to expect.
    const codes = new Set(words.filter((word) => !enumValues.has(word) && !upstreamWords.has(word)));
    expect([...codes].filter((code) => !known.has(code))).toEqual([]);
  });

  it('holds every WebSocket close code the source sends', () => {
    const sent = new Set<number>();
    for (const { text } of gatewaySources) {
      for (const m of text.matchAll(/\bCLOSE_[A-Z_]+ = (\d{4})\b/g)) sent.add(Number(m[1]));
      for (const m of text.matchAll(/\.close\((\d{4})\b/g)) sent.add(Number(m[1]));
      for (const m of text.matchAll(/\bCloseCode\.(\w+)/g)) sent.add(CloseCode[m[1] as keyof typeof CloseCode]);
      // The catalogue's named constants (close-codes.ts), which the modules that close sockets import.
      for (const m of text.matchAll(/\b(CLOSE_[A-Z_]+)\b/g)) {
        const named = (closeCodes as Record<string, unknown>)[m[1]!];
        if (typeof named === 'number') sent.add(named);
      }
    }
    expect([...sent].filter((code) => !(code in CLOSE_CODES))).toEqual([]);
    const ours = Object.entries(CLOSE_CODES).filter(([, entry]) => entry.sentBy === 'gateway');
    expect(ours.map(([code]) => Number(code)).filter((code) => !sent.has(code))).toEqual([]);
  });

  it('is the only place a close code number is defined', () => {
    const defined = gatewaySources.filter(({ text }) => /\bCLOSE_[A-Z_]+ = \d{4}\b|\.close\(\d{4}\b/.test(text)).map(({ path }) => path);
    expect(defined).toEqual([]);
  });

  it('gives each code one shape: its status on request refusals only, its retry hint, a message', () => {
    for (const [code, entry] of entries) {
      for (const example of entry.examples) {
        const described = describeFailure(code, example as never);
        const error = gatewayError(code, example as never);
        expect(error.message, code).toBe(described.message);
        expect(described.message.length, code).toBeGreaterThan(0);
        const { http, ...extensions } = error.extensions as { code: string; http?: { status: number; headers: Record<string, string> } };
        expect(extensions, code).toEqual(described.extensions);
        expect(extensions.code).toBe(code);
        if (entry.surface === 'request') expect(http, code).toEqual({ status: described.status, headers: described.headers });
        else expect(http, code).toBeUndefined();
        expect('retryAfterSeconds' in extensions, code).toBe(entry.retryAfter.rule !== 'none');
      }
    }
    // The reward API rate limiting the gateway fails one field, never the whole answer.
    expect(gatewayError('RATE_LIMITED', { by: 'upstream', retryAfterSeconds: 3 }, { onField: true }).extensions).toEqual({
      code: 'RATE_LIMITED',
      retryAfterSeconds: 3,
    });
  });
});

describe('refusals through yoga, as the catalogue describes them', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { ...KEYS_ENV, MAX_DEPTH: '4' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  const post = async (query: string, headers: Record<string, string> = bearer(KEYS.reader)) => {
    const res = await gw.gateway.yoga.fetch('http://127.0.0.1/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };

  it('a request refusal: its status, its headers and the body the catalogue gives', async () => {
    const res = await post('{ viewer { username } }', {});
    const failure = describeFailure('UNAUTHENTICATED');
    expect(res.status).toBe(failure.status);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body).toEqual(errorBody(failure));
  });

  it('refused documents: 400, with the code of what refused them', async () => {
    const depth = await post('{ campaigns(refs: ["a"]) { gifts { edges { node { brand { name } } } } } }');
    expect(depth.status).toBe(400);
    expect(depth.body.errors[0].extensions).toEqual({ code: 'DEPTH_LIMIT_EXCEEDED', limit: 4 });
    const parse = await post('{ viewer {');
    expect(parse.status).toBe(LIBRARY_CODES.GRAPHQL_PARSE_FAILED.status);
    expect(parse.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const unnamed = await post('query A { viewer { username } } query B { viewer { username } }');
    expect(unnamed.status).toBe(LIBRARY_CODES.OPERATION_RESOLUTION_FAILURE.status);
    expect(unnamed.body.errors[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
    const validation = await post('{ nope }');
    expect(validation.status).toBe(LIBRARY_CODES.GRAPHQL_VALIDATION_FAILED.status);
    expect(validation.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('a field error: 200, the rest of the data beside it', async () => {
    const res = await post('{ viewer { username } gifts(first: 500) { totalCount } }');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ viewer: { username: expect.any(String) }, gifts: null });
    const { message, extensions } = describeFailure('BAD_USER_INPUT', { reason: 'page-size', max: 100, first: 500 });
    expect(res.body.errors).toMatchObject([{ path: ['gifts'], message, extensions }]);
  });
});
