import {
  BREAK,
  GraphQLError,
  Kind,
  getOperationAST,
  valueFromASTUntyped,
  getVariableValues,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type ExecutionArgs,
  type GraphQLSchema,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { errorsInDocumentOrder } from './error-order.js';
import { interpret } from './interpreted-execution.js';
import { isMutationOfSeveralFields, nullSensitiveVariables } from './jit-differences.js';
import type { Logger } from './logger.js';

// Executes queries and mutations through code compiled for their document (graphql-jit) instead of graphql-js
// walking the document for every field of every answer: a nested read of 2,000 fields spends a quarter less
// CPU this way. Whatever does not run compiled runs on graphql-js's execute (interpreted-execution.ts). Both
// answer byte for byte alike, status included (test/graph/differential.test.ts).
// - A document is compiled on its second execution, not its first (COMPILE_AFTER_RUNS): compiling costs two to
//   three times what validating does, so a caller sending a new document every time pays nothing extra, and the
//   documents a client really repeats (all of a frontend's, every trusted document) run compiled from their
//   second use.
// - Variables are coerced by graphql-js first; when they do not coerce, graphql-js runs the operation and
//   refuses it in its own words: graphql-jit's own coercion knows neither @oneOf nor the scalars' own messages,
//   and answers a malformed value with an internal error.
// - Where graphql-jit executes differently from graphql-js (jit-differences.ts: a variable inside a literal input
//   value, or declared nullable where a value is required, given null; a mutation of several root fields), that
//   execution runs interpreted. So does a document graphql-jit cannot compile (logged once).
// - Documents using @defer or @stream run on yoga's own executor (@graphql-tools/executor, graphql-js's execute
//   with incremental delivery): neither graphql-jit nor graphql-js 16 delivers in parts. The operation's
//   loaders are the same for every part, so what deferred parts read together is batched together.
// - Subscriptions always run interpreted: graphql-jit 0.8 hands a subscription field's `subscribe` the
//   operation's variables instead of the field's arguments, so `giftStatusChanged(campaign: $ref)` would
//   subscribe to the whole account (test/graph/compiled-execution.test.ts).
// The compiled code is kept with the document, so it lives exactly as long as yoga's document cache keeps it.

type Jit = typeof import('graphql-jit');
// Loaded with the first document that is due to be compiled: graphql-jit and the JSON-schema tooling it pulls
// in add ~6 MB to a process that may never see a document twice (a sandbox, a health-checked idle replica).
let jit: Jit | undefined;
const loadJit = async (): Promise<Jit> => (jit ??= await import('graphql-jit'));

/**
 * The variables with every absent one that has a default set to it as JSON. graphql-jit bakes a default into
 * its code as JSON.stringify of the coerced value, so a custom scalar's default reached resolvers in its JSON
 * form (a DateTime as an ISO string, not a Date); given like this, the default goes through the scalar's
 * parseValue as a sent variable does.
 */
function withDefaults(values: ExecutionArgs['variableValues'], defaults: [string, unknown][]) {
  if (defaults.length === 0) return values;
  const filled: Record<string, unknown> = { ...values };
  for (const [name, value] of defaults) if (!(name in filled)) filled[name] = value;
  return filled;
}

/**
 * The compiled result in the interpreter's shape: `errors` before `data` and in document order, and every error a
 * graphql-js GraphQLError carrying its field nodes. graphql-jit's errors carry locations but no nodes, and yoga rebuilds
 * each error from its nodes before answering, so their locations were dropped.
 */
function asInterpreted(result: ExecutionResult, plan: Plan): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((error) => (error.nodes?.length || !error.path ? error : locate(error, plan)));
  const { data, extensions } = result;
  return errorsInDocumentOrder(extensions === undefined ? { errors, data } : { errors, data, extensions });
}

function locate(error: GraphQLError, plan: Plan): GraphQLError {
  const nodes = fieldNodesAt(plan.operation.selectionSet, plan.fragments, error.path!);
  if (nodes.length === 0) return error;
  return new GraphQLError(error.message, { nodes, path: error.path, originalError: error.originalError ?? undefined, extensions: error.extensions });
}

/** The field nodes answering `path` (response keys; list indexes skipped), through fragments of any type. */
function fieldNodesAt(root: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, path: readonly (string | number)[]): FieldNode[] {
  let sets: SelectionSetNode[] = [root];
  let found: FieldNode[] = [];
  for (const key of path) {
    if (typeof key === 'number') continue;
    found = [];
    const visit = (set: SelectionSetNode) => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          if ((selection.alias ?? selection.name).value === key) found.push(selection);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
        else {
          const fragment = fragments.get(selection.name.value);
          if (fragment) visit(fragment.selectionSet);
        }
      }
    };
    sets.forEach(visit);
    sets = found.flatMap((field) => (field.selectionSet ? [field.selectionSet] : []));
  }
  return found;
}

interface Plan {
  runs: number;
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: Map<string, FragmentDefinitionNode>;
  /** Defaults of the operation's variables, as a client would send them (JSON), by name. */
  defaults: [string, unknown][];
  /** Variables a request must give a value (not null) to run compiled (jit-differences.ts); set when compiled. */
  nullSensitive: string[];
  /** Undefined until compiled; null when graphql-jit could not compile it. */
  compiled?: CompiledQuery | null;
}

/** What this plugin reads of the GraphQL context: ops sits below the context, so it states the shape itself. */
interface OperationLog {
  /** The operation's logger, bound to its request id; absent for a context made without one. */
  log?: Logger;
}

export interface CompiledExecutionOptions {
  logger: Logger;
  /** Executions of a document before it runs compiled: 1 compiles it for its second; Infinity never compiles. */
  interpretedRuns: number;
}

/** Whether a document asks for incremental delivery (@defer or @stream anywhere in it); kept per document. */
const incremental = new WeakMap<DocumentNode, boolean>();
function deliversIncrementally(document: DocumentNode): boolean {
  let found = incremental.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      Directive(node) {
        if (node.name.value === 'defer' || node.name.value === 'stream') {
          found = true;
          return BREAK;
        }
        return undefined;
      },
    });
    incremental.set(document, found);
  }
  return found;
}

export function useCompiledExecution({ logger, interpretedRuns }: CompiledExecutionOptions): Plugin {
  if (interpretedRuns === Infinity)
    return {
      onExecute: ({ args, setExecuteFn }) => {
        if (!deliversIncrementally(args.document)) setExecuteFn(interpret);
      },
    };
  // Per document, per operation name (a document may hold several operations).
  const plans = new WeakMap<DocumentNode, Map<string, Plan>>();

  /** The operation's plan once it is due to run compiled; null while it runs interpreted. */
  function duePlan(args: ExecutionArgs): Plan | null {
    const name = args.operationName ?? '';
    let byName = plans.get(args.document);
    if (!byName) plans.set(args.document, (byName = new Map()));
    let plan = byName.get(name);
    if (!plan || plan.schema !== args.schema) {
      const operation = getOperationAST(args.document, args.operationName);
      // The interpreter reports a missing or ambiguous operation in its own words.
      if (!operation) return null;
      const defaults = (operation.variableDefinitions ?? [])
        .filter((v) => v.defaultValue)
        .map((v): [string, unknown] => [v.variable.name.value, valueFromASTUntyped(v.defaultValue!)]);
      const fragments = new Map<string, FragmentDefinitionNode>();
      for (const d of args.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
      plan = { runs: 0, schema: args.schema, operation, fragments, defaults, nullSensitive: [] };
      byName.set(name, plan);
    }
    return ++plan.runs > interpretedRuns ? plan : null;
  }

  function compile(plan: Plan, args: ExecutionArgs, { compileQuery, isCompiledQuery }: Jit): Plan | null {
    if (plan.compiled === undefined) {
      // On the operation's own logger when it has one, so the line carries its request id.
      const log = (args.contextValue as OperationLog).log ?? logger;
      if (isMutationOfSeveralFields(args.document, plan.operation)) {
        plan.compiled = null;
        log.debug({ operationName: args.operationName }, 'operation runs interpreted: a mutation of several root fields');
        return null;
      }
      plan.nullSensitive = nullSensitiveVariables(plan.schema, args.document, plan.operation);
      const result = compileQuery(args.schema, args.document, args.operationName ?? undefined, { disablingCapturingStackErrors: true });
      plan.compiled = isCompiledQuery(result) ? result : null;
      if (plan.compiled) log.debug({ operationName: args.operationName }, 'operation compiled');
      else
        log.warn(
          { operationName: args.operationName, errors: (result as ExecutionResult).errors },
          'operation runs interpreted: graphql-jit could not compile it',
        );
    }
    return plan.compiled ? plan : null;
  }

  /** The compiled plan to run, or null to run interpreted; waits only for the first compile's module load. */
  function compiledFor(args: ExecutionArgs): Plan | null | Promise<Plan | null> {
    const plan = duePlan(args);
    if (!plan) return null;
    return jit ? compile(plan, args, jit) : loadJit().then((loaded) => compile(plan, args, loaded));
  }

  /**
   * Whether this execution may run compiled: graphql-js coerces its variables (graphql-js alone runs it
   * otherwise, to refuse them), and every variable graphql-jit mishandles as null has a value.
   */
  function runsCompiled(plan: Plan, args: ExecutionArgs): boolean {
    const { coerced } = getVariableValues(plan.schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {}, { maxErrors: 1 });
    return coerced !== undefined && plan.nullSensitive.every((name) => coerced[name] != null);
  }

  const then = <T, R>(value: T | Promise<T>, next: (v: T) => R): R | Promise<R> => (value instanceof Promise ? value.then(next) : next(value));

  return {
    onExecute({ args, setExecuteFn }) {
      // Yoga's executor, as set up: the one that delivers in parts.
      if (deliversIncrementally(args.document)) return;
      return then(compiledFor(args), (plan) => {
        if (!plan || !runsCompiled(plan, args)) return setExecuteFn(interpret);
        const compiled = plan.compiled!;
        const { defaults } = plan;
        setExecuteFn((run) =>
          then(compiled.query(run.rootValue, run.contextValue, withDefaults(run.variableValues, defaults)), (r) => asInterpreted(r, plan)),
        );
      });
    },
  };
}
