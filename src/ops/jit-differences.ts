import {
  isNonNullType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type ASTNode,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
} from 'graphql';

// Where graphql-jit 0.8 executes a document differently from graphql-js, found by the differential test
// (test/graph/differential.test.ts). Those executions run interpreted; everything else runs compiled.

/**
 * Variables graphql-jit mishandles when they are null or absent (coerced, defaults applied):
 * - A variable inside a literal list or input object (`input: { reward: $r }`, `refs: [$a]`): graphql-jit
 *   copies its value into the literal without coercing the literal again, so a null reached a non-null field
 *   and the upstream (a 422), where graphql-js refuses the argument; an absent one became null instead of
 *   leaving the field out.
 * - A variable declared nullable (so with a default) where a value is required (`$ref: ID = "x"` in
 *   `campaign(ref: $ref)`, `$skip: Boolean = false` in `@skip(if: $skip)`): an explicit null is graphql-js's
 *   "must not be null" error at the argument; graphql-jit reports it at the field, or ignores it in @skip.
 * With a value, each executes exactly as graphql-js does, so only a request giving one of them null runs
 * interpreted, and the document stays compiled for every other request.
 */
export function nullSensitiveVariables(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const declared = new Map((operation.variableDefinitions ?? []).map((v) => [v.variable.name.value, v.type]));
  const typeInfo = new TypeInfo(schema);
  const sensitive = new Set<string>();
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Variable(node, _key, _parent, _path, ancestors) {
        const name = node.name.value;
        const definition = declared.get(name);
        // Variable definitions themselves, and variables of the document's other operations.
        if (!definition || ancestors.some((a) => (a as ASTNode).kind === Kind.VARIABLE_DEFINITION)) return;
        const insideLiteral = ancestors.some((a) => (a as ASTNode).kind === Kind.LIST || (a as ASTNode).kind === Kind.OBJECT);
        const nullableWhereRequired = isNonNullType(typeInfo.getInputType()) && definition.kind !== Kind.NON_NULL_TYPE;
        if (insideLiteral || nullableWhereRequired) sensitive.add(name);
      },
    }),
  );
  return [...sensitive];
}

/**
 * A mutation of several root fields runs interpreted: after one fails with a non-null error graphql-jit still
 * runs the next (a cancel or a create the client is never told about, as `data` is null); graphql-js stops.
 */
export function isMutationOfSeveralFields(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  if (operation.operation !== 'mutation') return false;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const count = (selections: readonly SelectionNode[], seen: ReadonlySet<string>): number =>
    selections.reduce((n, s) => {
      if (s.kind === Kind.FIELD) return n + 1;
      if (s.kind === Kind.INLINE_FRAGMENT) return n + count(s.selectionSet.selections, seen);
      const fragment = fragments.get(s.name.value);
      return fragment && !seen.has(s.name.value) ? n + count(fragment.selectionSet.selections, new Set([...seen, s.name.value])) : n;
    }, 0);
  return count(operation.selectionSet.selections, new Set()) > 1;
}
