import type { Plugin } from 'graphql-yoga';
import { describeFailure } from '../errors/gateway-error.js';
import { refusalResponse } from './refusal.js';

// Yoga picks the response format after executing the operation, and answers 406 when none matches Accept:
// by then a mutation has already run. This plugin makes the same choice first, from the same media types and
// the same Accept reading (utf-8 only), so an operation whose answer cannot be delivered never executes.

/** What yoga can answer with: regular JSON, SSE and incremental multipart. */
const PRODUCED = ['application/graphql-response+json', 'application/json', 'text/event-stream', 'multipart/mixed'];

function acceptedMediaTypes(accept: string | null): string[] {
  const types: string[] = [];
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = entry.split(';');
    if (!type) continue;
    const charset = params.find((p) => p.startsWith('charset='));
    if (charset && charset !== 'charset=utf-8') continue;
    types.push(type);
  }
  return types;
}

function matches(range: string, type: string): boolean {
  const [rangeMain, rangeSub] = range.split('/');
  const [main, sub] = type.split('/');
  return (rangeMain === '*' || rangeMain === main) && (rangeSub === '*' || rangeSub === sub);
}

export function acceptable(accept: string | null): boolean {
  return acceptedMediaTypes(accept).some((range) => PRODUCED.some((type) => matches(range, type)));
}

export function useContentNegotiation(options: { graphiql: boolean }): Plugin {
  return {
    onRequest({ request, fetchAPI, endResponse }) {
      if (request.method !== 'GET' && request.method !== 'POST') return;
      const accept = request.headers.get('accept');
      // A browser asking for the page: yoga serves GraphiQL and runs nothing.
      if (options.graphiql && request.method === 'GET' && accept?.includes('text/html')) return;
      if (acceptable(accept)) return;
      endResponse(refusalResponse(describeFailure('NOT_ACCEPTABLE', { produced: PRODUCED }), fetchAPI.Response));
    },
  };
}
