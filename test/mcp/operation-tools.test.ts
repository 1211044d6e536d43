import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { variablesSchema } from '../../src/mcp/input-schema.js';
import { loadOperationTools, mayCall, missingScopesFor } from '../../src/mcp/operation-tools.js';
import { schema as gatewaySchema } from '../../src/schema/index.js';

// What a tool is made of, without a gateway: its input JSON Schema from the variables' types, and the folder
// rules that keep each file one reviewed, described operation.

const schema = buildSchema(`
  """A node of a tree."""
  input Node { label: String!, children: [Node!] }
  input Choice @oneOf { brand: String, brands: [String!] }
  enum Colour { RED GREEN }
  input Filter {
    """Only this colour."""
    colour: Colour = RED
    tags: [String]
  }
  type Query {
    pick(
      """What to pick."""
      choice: Choice!
      filter: Filter
      """At most this many."""
      first: Int = 10
    ): String
    tree(root: Node!): String
  }
`);

const operationOf = (source: string) => parse(source).definitions[0] as OperationDefinitionNode;

describe('input schemas', () => {
  it('describe variables from the arguments they are passed to, and input fields from their own descriptions', () => {
    const input = variablesSchema(
      schema,
      operationOf('query Q($choice: Choice!, $filter: Filter, $first: Int = 5) { pick(choice: $choice, filter: $filter, first: $first) }'),
    );
    expect(input).toEqual({
      type: 'object',
      properties: {
        choice: {
          type: 'object',
          description: 'What to pick.',
          properties: { brand: { type: 'string' }, brands: { type: 'array', items: { type: 'string' } } },
          oneOf: [{ required: ['brand'] }, { required: ['brands'] }],
          minProperties: 1,
          maxProperties: 1,
          additionalProperties: false,
        },
        filter: {
          type: 'object',
          properties: {
            colour: { type: 'string', enum: ['RED', 'GREEN'], description: 'Only this colour.', default: 'RED' },
            tags: { type: 'array', items: { type: 'string' } },
          },
          additionalProperties: false,
        },
        first: { type: 'integer', description: 'At most this many.', default: 5 },
      },
      required: ['choice'],
      additionalProperties: false,
    });
  });

  it('a variable inside an input object literal takes the input field’s description', () => {
    const input = variablesSchema(schema, operationOf('query Q($colour: Colour) { pick(choice: { brand: "x" }, filter: { colour: $colour }) }'));
    expect(input.properties).toEqual({ colour: { type: 'string', enum: ['RED', 'GREEN'], description: 'Only this colour.' } });
  });

  it('a recursive input type stops at its first repetition', () => {
    const input = variablesSchema(schema, operationOf('query Q($root: Node!) { tree(root: $root) }')) as any;
    expect(input.properties.root.properties.children).toEqual({ type: 'array', items: { type: 'object', description: 'A node of a tree.' } });
  });
});

describe('the operations folder', () => {
  let folder: string;
  const withFiles = (files: Record<string, string>) => {
    folder = mkdtempSync(join(tmpdir(), 'mcp-operations-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
    return folder;
  };
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it.each([
    ['no leading comment', 'query Regions { regions { id } }', /begin it with a # comment/],
    ['two operations', '# Two.\nquery A { regions { id } }\nquery B { regions { name } }', /exactly one named operation/],
    ['an anonymous operation', '# Anonymous.\n{ regions { id } }', /exactly one named operation/],
    ['a subscription', '# Live.\nsubscription S { fundsChanged { cursor } }', /a subscription cannot be a tool/],
    ['a field the schema lacks', '# Wrong.\nquery Wrong { nothing }', /Wrong does not fit the schema/],
  ])('refuses %s at start-up', (_case, text, problem) => {
    expect(() => loadOperationTools(gatewaySchema, withFiles({ 'op.graphql': text }), null)).toThrow(problem);
  });

  it('a folder that cannot be read names the variable', () => {
    folder = join(tmpdir(), 'mcp-operations-missing');
    expect(() => loadOperationTools(gatewaySchema, folder, null)).toThrow(/^MCP_OPERATIONS_DIR .* cannot be read \(ENOENT\)/);
  });

  it('a tool needs one scope of each field it selects', () => {
    const [tool] = loadOperationTools(
      gatewaySchema,
      withFiles({ 'both.graphql': '# Both.\n# Two lines.\nquery Both { regions { id } funds { observedAt } }' }),
      null,
    );
    expect(tool).toMatchObject({ name: 'Both', description: 'Both. Two lines.', kind: 'query', scopes: [['rewards:read'], ['funds:read']] });
    expect(tool!.request).toEqual({ query: expect.stringContaining('query Both') });
    expect(mayCall(tool!, new Set(['rewards:read', 'funds:read']))).toBe(true);
    expect(mayCall(tool!, new Set(['rewards:read']))).toBe(false);
    expect(missingScopesFor(tool!, new Set(['rewards:read']))).toEqual(['funds:read']);
  });

  it('with a trusted-documents manifest, only its operations, by document id', () => {
    const manifest = new Map([['sha256:abc', 'query Kept { regions { id } }']]);
    const tools = loadOperationTools(
      gatewaySchema,
      withFiles({ 'kept.graphql': '# Kept.\nquery Kept { regions { id } }', 'other.graphql': '# Other.\nquery Other { regions { name } }' }),
      manifest,
    );
    expect(tools.map((tool) => [tool.name, tool.request])).toEqual([['Kept', { documentId: 'sha256:abc' }]]);
  });
});
