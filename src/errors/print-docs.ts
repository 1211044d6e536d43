import { GraphQLObjectType, GraphQLUnionType, getNamedType, isInterfaceType, type GraphQLSchema } from 'graphql';
import { CATALOGUE, type Failure, type RetryAfter } from './catalogue.js';
import { CLOSE_CODES } from './close-codes.js';
import { describeFailure } from './gateway-error.js';
import { LIBRARY_CODES } from './library-codes.js';

// docs/errors.md, printed from the catalogue, the close codes and the schema's error types, so the page cannot
// drift from what the gateway sends (a test compares the committed file with this output).

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function statusText(entry: Failure<never>): string {
  if (typeof entry.status === 'number') return entry.surface === 'document' ? '400 (200 to `application/json`)' : String(entry.status);
  return entry.status.values.join(', ');
}

function retryAfterText(rule: RetryAfter): string {
  if (rule.rule === 'none') return '—';
  if (rule.rule === 'fixed') return `${rule.seconds} s`;
  return `computed: ${rule.from}`;
}

function gatewayCodes(): string[] {
  const lines = [
    '| Code | Where | HTTP status | Retryable | Retry-After | When |',
    '|------|-------|-------------|-----------|-------------|------|',
  ];
  for (const [code, entry] of Object.entries(CATALOGUE) as unknown as [keyof typeof CATALOGUE, Failure<never>][]) {
    lines.push(
      `| \`${code}\` | ${entry.surface} | ${statusText(entry)} | ${entry.retryable ? 'yes' : 'no'} | ${cell(retryAfterText(entry.retryAfter))} | ${cell(entry.when)} |`,
    );
  }
  return lines;
}

function messages(): string[] {
  const lines: string[] = [];
  for (const [code, entry] of Object.entries(CATALOGUE) as unknown as [keyof typeof CATALOGUE, Failure<unknown>][]) {
    lines.push(`### \`${code}\``, '');
    const samples = new Set(entry.examples.map((example) => describeFailure(code, example as never).message));
    for (const sample of samples) lines.push(`- ${sample.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))}`);
    if (entry.retryAfter.rule !== 'none') lines.push('- `extensions.retryAfterSeconds`: how long to wait before retrying');
    for (const [field, meaning] of Object.entries(entry.extensions?.fields ?? {})) lines.push(`- \`extensions.${field}\`: ${meaning}`);
    if (entry.surface === 'request') {
      const headers = typeof entry.headers === 'function' ? entry.headers(entry.examples[0]) : entry.headers;
      const sent = Object.entries(headers ?? {}).map(([name, value]) => `\`${name}: ${value}\``);
      if (entry.retryAfter.rule !== 'none') sent.push('`retry-after` (the same seconds)');
      if (sent.length) lines.push(`- Headers: ${sent.join(', ')}`);
    }
    lines.push('');
  }
  return lines;
}

function libraryCodes(): string[] {
  const lines = ['| Code | Where | HTTP status | When | Fix |', '|------|-------|-------------|------|-----|'];
  for (const [code, entry] of Object.entries(LIBRARY_CODES)) {
    const status = entry.okToJsonClients ? `${entry.status} (200 to \`application/json\`)` : String(entry.status);
    lines.push(`| \`${code}\` | ${entry.surface} | ${status} | ${cell(entry.when)} | ${cell(entry.fix)} |`);
  }
  return lines;
}

function closeCodes(): string[] {
  const lines = ['| Code | Sent by | Meaning | Reconnect? |', '|------|---------|---------|------------|'];
  for (const [code, entry] of Object.entries(CLOSE_CODES))
    lines.push(`| ${code} | ${entry.sentBy} | ${cell(entry.meaning)} | ${cell(entry.retry)} |`);
  return lines;
}

/** The types implementing `Error`, with the mutations whose result union holds each. */
function errorsAsData(schema: GraphQLSchema): string[] {
  const errorInterface = schema.getType('Error');
  if (!isInterfaceType(errorInterface)) return [];
  const mutations = Object.values(schema.getMutationType()?.getFields() ?? {});
  const lines = ['| Type | Returned by | Fields besides `message` | Meaning |', '|------|-------------|--------------------------|---------|'];
  const types = [...schema.getImplementations(errorInterface).objects].sort((a, b) => a.name.localeCompare(b.name));
  for (const type of types) {
    const returnedBy = mutations
      .filter((field) => {
        const result = getNamedType(field.type);
        return result === type || (result instanceof GraphQLUnionType && result.getTypes().includes(type as GraphQLObjectType));
      })
      .map((field) => `\`${field.name}\``);
    const fields = Object.keys(type.getFields())
      .filter((name) => name !== 'message')
      .map((name) => `\`${name}\``);
    lines.push(`| \`${type.name}\` | ${returnedBy.join(', ') || '—'} | ${fields.join(', ') || '—'} | ${cell(type.description ?? '')} |`);
  }
  return lines;
}

export function printErrorDocs(schema: GraphQLSchema): string {
  return [
    '# Errors',
    '',
    '<!-- Printed by `npm run docs:errors` from src/errors/ and the schema; edit those, not this file. -->',
    '',
    'Every error the gateway sends has a stable `extensions.code`; match on it, never on the message, which may be',
    'reworded. Each message says what to do about it. Over WebSocket an error looks the same, without an HTTP status.',
    '',
    'Where an error shows decides the HTTP status of the answer that carries it:',
    '',
    '- **request**: the HTTP request is refused before any GraphQL work, with the status in the table.',
    '- **document**: the document is refused while it is parsed or validated: 400, or 200 to a client that',
    '  accepts only `application/json` (as GraphQL over HTTP has it). Nothing ran.',
    '- **operation**: a valid operation is refused before it runs: 200, with no data.',
    '- **field**: one field of a running operation failed, or a subscription could not start: 200, with the',
    '  rest of the data beside it (`null` where the field was).',
    '',
    '"Retryable" says whether sending the very same request again, later, can succeed. When there is a',
    '`Retry-After`, the error carries `extensions.retryAfterSeconds` (and a request refusal the `Retry-After`',
    'header); wait that long first.',
    '',
    '## Codes the gateway raises',
    '',
    ...gatewayCodes(),
    '',
    '## Messages and extensions',
    '',
    'Sample messages, one per variant, with the extensions each code adds to `code`.',
    '',
    ...messages(),
    '## Codes yoga raises',
    '',
    'These come from the GraphQL server library with its own messages, which name the problem and where.',
    '',
    ...libraryCodes(),
    '',
    'Three of its refusals carry no code, only a message:',
    '',
    '- 403 `Required CSRF header(s) not present`: a request a browser could send from another site without asking',
    '  first (a GET, or a POST of a form or of plain text) that carries neither `Authorization` nor',
    '  `x-graphql-yoga-csrf`. Send either header. Without API keys (development) a GET is refused only when the',
    '  browser says it comes from another site (`Sec-Fetch-Site: cross-site`, or an Origin not loopback nor in',
    '  `CORS_ORIGINS`).',
    '- 405 `Can only perform a mutation operation from a POST request.`: a mutation sent with GET. POST it.',
    '- 400 `Variable "$x" got invalid value …`: a variable whose value does not fit its type. Fix the value.',
    '',
    '## WebSocket close codes',
    '',
    'A refusal that concerns the whole connection closes the socket with one of these codes and a reason;',
    'one that concerns a single operation is an `error` message with a code from the tables above.',
    '',
    ...closeCodes(),
    '',
    '## Errors as data (mutations)',
    '',
    'A mutation answers the expected ways it can fail as members of its result union, not as GraphQL errors:',
    'select `... on Error { message }` to see any of them, and the specific types for their fields. An order',
    'waiting for funds is not among them: it is a payload with `funding: AWAITING_FUNDS`.',
    '',
    ...errorsAsData(schema),
    '',
  ].join('\n');
}
