import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kind, parse, print, TypeInfo, validate, visit, visitWithTypeInfo, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { isScope, type Scope } from '../security/scopes.js';
import type { TrustedDocuments } from '../security/use-trusted-documents.js';
import { variablesSchema, type JsonSchema } from './input-schema.js';

// The tools of /mcp: one per trusted operation, never a document a model writes. Each `.graphql` file of the
// operations folder holds one operation; its name is the tool's, its leading `#` comment the tool's description
// (written for a model: when to use it, what to pass, what to do with the answer), its variables the tool's
// input. With TRUSTED_DOCUMENTS the gateway runs the manifest's documents only, so a tool is made only of an
// operation the manifest holds, and called by its document id.

export interface OperationTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** Reads run as queries; a mutation writes (creates, funds, resends or cancels). */
  kind: 'query' | 'mutation';
  /** Every entry is a field the operation selects: the caller needs one of its scopes, for each. */
  scopes: readonly (readonly Scope[])[];
  /** What is sent to /graphql: the document, or its id in the trusted-documents manifest. */
  request: { query: string } | { documentId: string };
}

/** The leading `#` lines of a file, joined: the tool's description. */
function leadingComment(source: string): string {
  const lines: string[] = [];
  for (const line of source.split('\n')) {
    const comment = /^\s*#\s?(.*)$/.exec(line);
    if (!comment) break;
    lines.push(comment[1]!.trimEnd());
  }
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}

/**
 * The scopes of each field the operation selects, as scope-auth declares them on the schema (Pothos keeps a
 * field's options in its extensions; a map of scopes there means any one of them).
 */
function requiredScopes(schema: GraphQLSchema, operation: OperationDefinitionNode): Scope[][] {
  const needed = new Map<string, Scope[]>();
  const typeInfo = new TypeInfo(schema);
  visit(
    operation,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const field = typeInfo.getFieldDef();
        const declared = (field?.extensions as { pothosOptions?: { authScopes?: unknown } } | undefined)?.pothosOptions?.authScopes;
        if (!declared || typeof declared !== 'object') return;
        const anyOf = Object.entries(declared)
          .filter(([scope, on]) => on === true && isScope(scope))
          .map(([scope]) => scope as Scope)
          .sort();
        needed.set(anyOf.join(' '), anyOf);
      },
    }),
  );
  return [...needed.values()];
}

/** The operation of a `.graphql` file: exactly one, named, and no fragments to resolve elsewhere. */
function soleOperation(file: string, source: string): OperationDefinitionNode {
  const definitions = parse(source).definitions;
  const operation = definitions[0];
  if (definitions.length !== 1 || operation?.kind !== Kind.OPERATION_DEFINITION || !operation.name) {
    throw new Error(`${file}: an operation file must hold exactly one named operation (it becomes one MCP tool)`);
  }
  if (operation.operation === 'subscription') throw new Error(`${file}: a subscription cannot be a tool (follow an order as a resource)`);
  return operation;
}

/** The manifest's document ids by operation name. */
function idsByName(trusted: TrustedDocuments): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [id, document] of trusted) {
    if (!id.startsWith('sha256:') && trusted.has(`sha256:${id}`)) continue;
    for (const definition of parse(document).definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION && definition.name) ids.set(definition.name.value, id);
    }
  }
  return ids;
}

/**
 * The tools made of the `.graphql` files of `folder`, checked against `schema` (a file that does not validate
 * fails start-up, as its tool could never run). `trusted`: only the manifest's operations, by id.
 */
export function loadOperationTools(schema: GraphQLSchema, folder: string, trusted: TrustedDocuments | null): OperationTool[] {
  const ids = trusted ? idsByName(trusted) : null;
  const tools: OperationTool[] = [];
  let files: string[];
  try {
    files = readdirSync(folder).filter((name) => name.endsWith('.graphql'));
  } catch (error) {
    throw new Error(
      `MCP_OPERATIONS_DIR ${folder} cannot be read (${(error as NodeJS.ErrnoException).code}): it holds the operations that become MCP tools`,
      { cause: error },
    );
  }
  for (const file of files.sort()) {
    const source = readFileSync(join(folder, file), 'utf8');
    const operation = soleOperation(file, source);
    const name = operation.name!.value;
    const description = leadingComment(source);
    if (!description) throw new Error(`${file}: begin it with a # comment describing ${name} for a model: it is the tool's description`);
    const documentId = ids?.get(name);
    if (ids && !documentId) continue;
    const invalid = validate(schema, { kind: Kind.DOCUMENT, definitions: [operation] });
    if (invalid.length) throw new Error(`${file}: ${name} does not fit the schema: ${invalid.map((error) => error.message).join('; ')}`);
    tools.push({
      name,
      description,
      inputSchema: variablesSchema(schema, operation),
      kind: operation.operation === 'mutation' ? 'mutation' : 'query',
      scopes: requiredScopes(schema, operation),
      request: documentId ? { documentId } : { query: print(operation) },
    });
  }
  return tools;
}

/** Whether a caller holding `scopes` may run the tool: one scope of each field's. */
export function mayCall(tool: Pick<OperationTool, 'scopes'>, scopes: ReadonlySet<Scope>): boolean {
  return tool.scopes.every((anyOf) => anyOf.some((scope) => scopes.has(scope)));
}

/** The scopes a caller lacks for the tool: the first of each field's it holds none of. */
export function missingScopesFor(tool: Pick<OperationTool, 'scopes'>, scopes: ReadonlySet<Scope>): Scope[] {
  return [...new Set(tool.scopes.filter((anyOf) => !anyOf.some((scope) => scopes.has(scope))).map((anyOf) => anyOf[0]!))];
}
