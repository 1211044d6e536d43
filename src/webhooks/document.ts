import { Kind, parse, print, type DocumentNode, type FieldNode, type OperationDefinitionNode } from 'graphql';

// An endpoint's subscription document as the delivery loop runs it. Every event's cursor is asked for under an
// alias of the gateway's own (the caller need not select `cursor`; it is taken out of `data` before sending),
// and the position to resume from is the root field's `after` argument, which is why the document may not set
// it itself. Everything else (the schema, scopes, depth, aliases, cost) is checked by running the document
// through the access pipeline, not here.

/** The alias under which each event's cursor is selected; removed from the payload's data. */
export const CURSOR_ALIAS = '_webhookCursor';

export interface SubscriptionShape {
  /** The root field's name: the payload's `type`. */
  type: string;
  /** The root field's key in `data` (its alias, or its name). */
  responseKey: string;
}

/** What is wrong with the document for a webhook, or its shape. Parse errors are left to the pipeline. */
export function subscriptionShape(query: string): { ok: true; shape: SubscriptionShape } | { ok: false; problem: string } {
  let document: DocumentNode;
  try {
    document = parse(query, { noLocation: true });
  } catch {
    // The pipeline reports the syntax error with its position; nothing is rewritten for a document it refuses.
    return { ok: true, shape: { type: '', responseKey: '' } };
  }
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) return { ok: false, problem: 'must hold exactly one operation' };
  const [operation] = operations as [OperationDefinitionNode];
  if (operation.operation !== 'subscription') return { ok: false, problem: `must be a subscription, not a ${operation.operation}` };
  const root = rootField(operation);
  if (!root) return { ok: false, problem: 'must select its root field directly (not through a fragment)' };
  if (root.arguments?.some((arg) => arg.name.value === 'after')) {
    return { ok: false, problem: 'must not set `after`: the gateway keeps the endpoint’s position (use replayWebhookEvents to go back)' };
  }
  return { ok: true, shape: { type: root.name.value, responseKey: root.alias?.value ?? root.name.value } };
}

/** The document with each event's cursor selected and, when given, `after` set on its root field. */
export function deliveryDocument(query: string, after: string | null): string {
  let document: DocumentNode;
  try {
    document = parse(query, { noLocation: true });
  } catch {
    return query;
  }
  const definitions = document.definitions.map((definition) => {
    if (definition.kind !== Kind.OPERATION_DEFINITION) return definition;
    const root = rootField(definition);
    if (!root) return definition;
    const field: FieldNode = {
      ...root,
      arguments: [
        ...(root.arguments ?? []),
        ...(after === null
          ? []
          : [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'after' }, value: { kind: Kind.STRING, value: after } } as const]),
      ],
      selectionSet: root.selectionSet && {
        ...root.selectionSet,
        selections: [
          ...root.selectionSet.selections,
          { kind: Kind.FIELD, alias: { kind: Kind.NAME, value: CURSOR_ALIAS }, name: { kind: Kind.NAME, value: 'cursor' } },
        ],
      },
    };
    return { ...definition, selectionSet: { ...definition.selectionSet, selections: [field] } };
  });
  return print({ ...document, definitions });
}

/** The event's cursor and its data as the caller selected it (without the gateway's alias). */
export function splitEvent(data: Record<string, unknown>, responseKey: string): { cursor: string | null; data: Record<string, unknown> } {
  const event = data[responseKey];
  if (!event || typeof event !== 'object') return { cursor: null, data };
  const { [CURSOR_ALIAS]: cursor, ...rest } = event as Record<string, unknown>;
  return { cursor: typeof cursor === 'string' ? cursor : null, data: { ...data, [responseKey]: rest } };
}

function rootField(operation: OperationDefinitionNode): FieldNode | null {
  const [first] = operation.selectionSet.selections;
  return operation.selectionSet.selections.length === 1 && first?.kind === Kind.FIELD ? first : null;
}
