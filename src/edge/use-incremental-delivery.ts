import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import {
  BREAK,
  coerceInputValue,
  getDirectiveValues,
  getOperationAST,
  GraphQLError,
  isInputType,
  Kind,
  typeFromAST,
  valueFromAST,
  visit,
  type DirectiveNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLDirective,
  type GraphQLSchema,
  type InlineFragmentNode,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/gateway-error.js';
import { deferDirective, streamDirective } from '../schema/incremental-delivery.js';

// @defer and @stream (declared in schema/incremental-delivery.ts), answered as multipart/mixed or SSE by yoga's
// plugin. Validation checks their types, labels and places, but not the values the executor then asserts: a
// negative or null `initialCount` (a literal or a variable) and a null `if` (a nullable variable, allowed there
// because `if` has a default) made it throw an invariant, answered INTERNAL_SERVER_ERROR with a logged stack.
// They are the caller's to fix, so they are refused as BAD_USER_INPUT before the operation runs.

interface Misuse {
  directive: GraphQLDirective;
  argument: 'initialCount' | 'if';
  on: string;
  problem: string;
  node: DirectiveNode;
}

const INCREMENTAL = new Set([streamDirective.name, deferDirective.name]);

/** Whether a document uses @stream or @defer anywhere, once per parsed document (yoga caches those). */
const incremental = new WeakMap<DocumentNode, boolean>();
function usesIncremental(document: DocumentNode): boolean {
  let uses = incremental.get(document);
  if (uses === undefined) {
    uses = false;
    visit(document, {
      Directive(node) {
        if (!INCREMENTAL.has(node.name.value)) return;
        uses = true;
        return BREAK;
      },
    });
    incremental.set(document, uses);
  }
  return uses;
}

function misuses(args: ExecutionArgs): Misuse[] {
  if (!usesIncremental(args.document)) return [];
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) return [];
  const variables = coercedVariables(args.schema, operation, args.variableValues ?? {});
  if (!variables) return [];
  const fragments = fragmentsOf(args.document);
  const found: Misuse[] = [];
  const seen = new Set<string>();
  const check = (node: FieldNode | FragmentSpreadNode | InlineFragmentNode, on: string) => {
    for (const directive of [streamDirective, deferDirective]) {
      const used = node.directives?.find((d) => d.name.value === directive.name);
      if (!used) continue;
      let values: Record<string, unknown> | undefined;
      try {
        values = getDirectiveValues(directive, node, variables);
      } catch (error) {
        // The one value coercion leaves to run time: null for the non-null `if` through a nullable variable.
        if (!(error instanceof GraphQLError)) throw error;
        found.push({ directive, argument: 'if', on, problem: 'must be true or false, got null', node: used });
        continue;
      }
      const count = values?.initialCount;
      if (directive === streamDirective && (typeof count !== 'number' || count < 0)) {
        found.push({
          directive,
          argument: 'initialCount',
          on,
          problem: `must be 0 or more (the items the initial answer carries), got ${String(count)}`,
          node: used,
        });
      }
    }
  };
  const walk = (root: OperationDefinitionNode | FragmentDefinitionNode) =>
    visit(root, {
      Field: (node) => check(node, (node.alias ?? node.name).value),
      InlineFragment: (node) => check(node, `... on ${node.typeCondition?.name.value ?? operation.operation}`),
      FragmentSpread: (node) => {
        check(node, `...${node.name.value}`);
        const fragment = fragments.get(node.name.value);
        if (fragment && !seen.has(fragment.name.value)) {
          seen.add(fragment.name.value);
          walk(fragment);
        }
      },
    });
  walk(operation);
  return found;
}

/**
 * The operation's variables as the executor will see them (defaults applied), or null when they do not
 * coerce: the executor refuses those itself, with its own message.
 */
function coercedVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, raw: Record<string, unknown>): Record<string, unknown> | null {
  const variables: Record<string, unknown> = {};
  let valid = true;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) return null;
    if (Object.hasOwn(raw, name)) variables[name] = coerceInputValue(raw[name], type, () => (valid = false));
    else if (definition.defaultValue) variables[name] = valueFromAST(definition.defaultValue, type);
  }
  return valid ? variables : null;
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

function useIncrementalArguments(): Plugin {
  const check = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution: (result: ExecutionResult) => void }) => {
    const found = misuses(args);
    if (!found.length) return;
    setResultAndStopExecution({
      errors: found.map((m) =>
        gatewayError(
          'BAD_USER_INPUT',
          { reason: 'invalid-input', issues: [{ path: [`@${m.directive.name}(${m.argument}:) on ${m.on}`], message: m.problem }] },
          { at: { nodes: [m.node] } },
        ),
      ),
    });
  };
  return { onExecute: check, onSubscribe: check };
}

/** yoga's @defer/@stream delivery, behind the check of the argument values it would otherwise fail on. */
export function useIncrementalDelivery(): Plugin[] {
  return [useIncrementalArguments(), useDeferStream()];
}
