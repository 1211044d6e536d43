// A URL's query string as a span may record it: the values of named parameters replaced by REDACTED, the names
// and every other value kept (the semantic conventions' way for url.query and url.full). The server span names
// GraphQL's parameters and credentials (server-span.ts), the upstream client span the reward API's filters that
// name a person (upstream/transport.ts).

/** `query` (without `?`) with the value of every parameter named in `names` (lower case; any case in `query`) replaced by REDACTED. */
export function withValuesRedacted(query: string, names: ReadonlySet<string>): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
      } catch {
        return `${pair.slice(0, eq)}=REDACTED`;
      }
      return names.has(name.toLowerCase()) ? `${pair.slice(0, eq)}=REDACTED` : pair;
    })
    .join('&');
}
