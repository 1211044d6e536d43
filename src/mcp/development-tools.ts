import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLSchema,
} from 'graphql';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

// Two tools for exploring the API in development (MCP_DEVELOPMENT_TOOLS, refused in production): SearchSchema
// finds the types and fields a task needs without reading the whole schema into the model's context, and
// ExecuteGraphQL runs a document the model wrote, as the caller, through the same pipeline as any GraphQL request
// (so scopes, limits and cost hold, and trusted-documents mode refuses it). A document that proves useful
// belongs in operations/, where it becomes a reviewed tool.

export const SEARCH_SCHEMA_TOOL = 'SearchSchema';
export const EXECUTE_TOOL = 'ExecuteGraphQL';

export const DEVELOPMENT_TOOLS: readonly Tool[] = [
  {
    name: SEARCH_SCHEMA_TOOL,
    description:
      'Searches the GraphQL schema of the reward gateway for types and fields whose name or description contains every word of `query` (case-insensitive), e.g. "gift recipient" or "cancel". Answers up to 25 matches, each with its type, field, GraphQL signature and description. Use it before ExecuteGraphQL to write a valid document.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Words to look for, e.g. "balance currency".' } },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: EXECUTE_TOOL,
    description:
      'Runs one GraphQL document (query or mutation) against the reward gateway as you, with the same scopes and limits as the other tools, and answers its data. For development only: prefer the named tools, which are reviewed. A mutation that creates or funds needs its idempotency `id`; reuse the same id to retry.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'The GraphQL document.' },
        variables: { type: 'object', description: 'Its variables, by name.' },
        operationName: { type: 'string', description: 'Which operation of the document to run, when it has several.' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, openWorldHint: false },
  },
];

export interface SchemaMatch {
  type: string;
  field?: string;
  signature: string;
  description?: string;
}

const MAX_MATCHES = 25;

function fieldSignature(field: GraphQLField<unknown, unknown> | GraphQLInputField): string {
  const args = 'args' in field && field.args.length ? `(${field.args.map((arg) => `${arg.name}: ${String(arg.type)}`).join(', ')})` : '';
  return `${field.name}${args}: ${String(field.type)}`;
}

/** The types and fields of `schema` whose name or description holds every word of `query`. */
export function searchSchema(schema: GraphQLSchema, query: string): SchemaMatch[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (...texts: (string | null | undefined)[]) => {
    const text = texts.filter(Boolean).join(' ').toLowerCase();
    return words.every((word) => text.includes(word));
  };
  const found: SchemaMatch[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const kind = isObjectType(type)
      ? 'type'
      : isInputObjectType(type)
        ? 'input'
        : isInterfaceType(type)
          ? 'interface'
          : isUnionType(type)
            ? 'union'
            : isEnumType(type)
              ? 'enum'
              : 'scalar';
    const members = isUnionType(type)
      ? ` = ${type.getTypes().join(' | ')}`
      : isEnumType(type)
        ? ` { ${type
            .getValues()
            .map((value) => value.name)
            .join(' ')} }`
        : '';
    if (matches(type.name, type.description, members))
      found.push({ type: type.name, signature: `${kind} ${type.name}${members}`, ...(type.description ? { description: type.description } : {}) });
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (matches(type.name, field.name, field.description, String(field.type))) {
          found.push({
            type: type.name,
            field: field.name,
            signature: fieldSignature(field),
            ...(field.description ? { description: field.description } : {}),
          });
        }
      }
    }
    if (found.length >= MAX_MATCHES) break;
  }
  return found.slice(0, MAX_MATCHES);
}
