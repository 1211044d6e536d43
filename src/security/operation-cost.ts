import {
  getNamedType,
  getVariableValues,
  isCompositeType,
  isListType,
  isNonNullType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from '../graph/page-size.js';

// The cost of an operation in upstream terms: every field is 1, and whatever sits below a field that returns
// many things is counted once per thing asked for — the page size (`first`, default page size when absent)
// of connections, the length of list arguments such as `campaigns(refs:)`. `campaigns(refs: [10]) {
// gifts(first: 20) { ... } }` therefore costs about 10 × 20 × the gift selection, which is what it makes
// the upstream do. Computed with the variables as execution coerces them (graphql-js getVariableValues), so
// neither a variable `first` nor a variable's default (`$n: Int = 100000`) can sneak past the limit.
// Each entry of a list argument is also an upstream request of its own (`refs` are looked up one by one),
// which costs far more than a field of an item in a page: LOOKUP_COST each. At the default limit one
// operation can name about 120 lookups (one full `campaigns(refs:)` list), not thousands: measured with a
// flood at the rate limit, 900 lookups per operation kept the event loop busy for seconds building one
// error per refused entry, while 100 per operation left /health and other keys unaffected.

/** What one upstream lookup named in a list argument adds to the cost. */
export const LOOKUP_COST = 200;

type Variables = Record<string, unknown> | null | undefined;

function argumentValue(node: ValueNode, variables: Variables): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables?.[node.name.value];
    case Kind.INT:
      return Number(node.value);
    case Kind.LIST:
      return node.values.map((v) => argumentValue(v, variables));
    default:
      return undefined;
  }
}

function isConnection(type: GraphQLOutputType): boolean {
  return getNamedType(type).name.endsWith('Connection');
}

/** Upstream lookups a field's list arguments ask for. */
function lookups(field: FieldNode, variables: Variables): number {
  let total = 0;
  for (const arg of field.arguments ?? []) {
    const value = argumentValue(arg.value, variables);
    if (Array.isArray(value)) total += value.length;
  }
  return total;
}

/** How many times the selection below this field is resolved. */
function multiplier(field: FieldNode, type: GraphQLOutputType, variables: Variables): number {
  let factor = 1;
  for (const arg of field.arguments ?? []) {
    const value = argumentValue(arg.value, variables);
    if (arg.name.value === 'first' && typeof value === 'number') factor = Math.max(factor, value);
    if (Array.isArray(value)) factor = Math.max(factor, value.length);
  }
  // A connection without a usable `first` (absent, null, or an omitted variable) gets the default page size,
  // exactly as the resolvers do.
  const first = field.arguments?.find((a) => a.name.value === 'first');
  if (isConnection(type) && typeof (first && argumentValue(first.value, variables)) !== 'number') {
    factor = Math.max(factor, DEFAULT_PAGE_SIZE);
  }
  const unwrapped = isNonNullType(type) ? type.ofType : type;
  return factor === 1 && isListType(unwrapped) ? 1 : factor;
}

/**
 * The operation's fields with their types, resolved against the schema once per document: what stays to do per
 * request is only the multipliers, which depend on the variables. A field with a selection keeps its node and
 * type for `multiplier`; `fields` counts the 1 of every field.
 */
interface Plan {
  fields: number;
  /** Fields with arguments: a list argument's length (known only with the variables) adds its lookups. */
  withArguments: FieldNode[];
  nested: { field: FieldNode; type: GraphQLOutputType; below: Plan }[];
}

function evaluate(plan: Plan, variables: Variables): number {
  let total = plan.fields;
  for (const field of plan.withArguments) total += lookups(field, variables) * LOOKUP_COST;
  for (const { field, type, below } of plan.nested) total += evaluate(below, variables) * multiplier(field, type, variables);
  return total;
}

/** An operation's plan and the variable definitions its variables are coerced with. */
interface OperationPlan {
  plan: Plan;
  variableDefinitions: readonly VariableDefinitionNode[];
}

function planOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): OperationPlan | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const operation = document.definitions.find(
    (def) => def.kind === Kind.OPERATION_DEFINITION && (!operationName || def.name?.value === operationName),
  );
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return null;
  const root = schema.getRootType(operation.operation);
  if (!root) return null;

  const plan = (selectionSet: SelectionSetNode, parent: GraphQLCompositeType, seen: Set<string>, into: Plan): Plan => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        const field = 'getFields' in parent ? parent.getFields()[selection.name.value] : undefined;
        if (!field) continue;
        into.fields += 1;
        if (selection.arguments?.length) into.withArguments.push(selection);
        const child = getNamedType(field.type);
        if (selection.selectionSet && isCompositeType(child)) {
          into.nested.push({
            field: selection,
            type: field.type,
            below: plan(selection.selectionSet, child, seen, { fields: 0, withArguments: [], nested: [] }),
          });
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const typed = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (typed && isCompositeType(typed)) plan(selection.selectionSet, typed, seen, into);
      } else {
        const fragment = fragments.get(selection.name.value);
        // A fragment spread inside itself is a validation error elsewhere; here it must not loop.
        if (!fragment || seen.has(fragment.name.value)) continue;
        const typed = schema.getType(fragment.typeCondition.name.value);
        if (typed && isCompositeType(typed)) plan(fragment.selectionSet, typed, new Set([...seen, fragment.name.value]), into);
      }
    }
    return into;
  };
  return {
    plan: plan(operation.selectionSet, root, new Set(), { fields: 0, withArguments: [], nested: [] }),
    variableDefinitions: operation.variableDefinitions ?? [],
  };
}

// yoga's parser cache hands out the same DocumentNode for the same query text, so a document held weakly is
// planned once for as long as it is in use. Keyed by schema too: tests build several.
// Only plans of operations that exist are kept, so made-up operation names cannot grow a document's entry.
const plans = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, OperationPlan>>>();

/**
 * The operation's cost with `variables` as sent. Variables that do not coerce cost 0 here: execution refuses them
 * with graphql-js's own errors before anything runs.
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Variables): number {
  let bySchema = plans.get(schema);
  if (!bySchema) plans.set(schema, (bySchema = new WeakMap()));
  let byName = bySchema.get(document);
  if (!byName) bySchema.set(document, (byName = new Map()));
  const name = operationName ?? '';
  const planned = byName.get(name) ?? planOf(schema, document, operationName);
  if (!planned) return 0;
  byName.set(name, planned);
  const coerced = getVariableValues(schema, planned.variableDefinitions, variables ?? {}, { maxErrors: 1 });
  return coerced.coerced ? evaluate(planned.plan, coerced.coerced) : 0;
}
