import {
  astFromValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  isSpecifiedScalarType,
  typeFromAST,
  TypeInfo,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

// A tool's input JSON Schema, made from its operation's variables and the schema's types: what a model reads to
// fill the arguments in. Types are written out inline rather than as $defs: clients and models read them more
// reliably, and the gateway's inputs are shallow. Descriptions come from the schema (the argument a variable is
// passed to, an input field's own); the variables' GraphQL defaults become `default`.

export type JsonSchema = { [key: string]: unknown };

/** How the gateway's custom scalars travel as JSON (codegen.ts's clientScalars says the same for TypeScript). */
const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  SafeInt: { type: 'integer' },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  JSONObject: { type: 'object' },
};

/** A value as JSON, as the schema would print it (an enum's name, not its internal value). */
function jsonValue(value: unknown, type: GraphQLInputType): unknown {
  const ast = astFromValue(value, type);
  return ast ? valueFromASTUntyped(ast) : undefined;
}

function described(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/** `type` as JSON Schema; `seen` holds the input objects being written, so a recursive one stops at `object`. */
function typeSchema(type: GraphQLInputType, seen: ReadonlySet<string> = new Set()): JsonSchema {
  if (isNonNullType(type)) return typeSchema(type.ofType, seen);
  if (isListType(type)) return { type: 'array', items: typeSchema(type.ofType, seen) };
  // The built-in scalars' descriptions say what a string or an integer is: nothing a model needs, at every field.
  if (isScalarType(type)) return isSpecifiedScalarType(type) ? SCALARS[type.name]! : described(SCALARS[type.name] ?? {}, type.description);
  if (isEnumType(type)) return described({ type: 'string', enum: type.getValues().map((value) => value.name) }, type.description);
  if (!isInputObjectType(type) || seen.has(type.name)) return described({ type: 'object' }, type.description);
  const within = new Set([...seen, type.name]);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(type.getFields())) {
    let property = described(typeSchema(field.type, within), field.description);
    if (field.defaultValue !== undefined) property = { ...property, default: jsonValue(field.defaultValue, field.type) };
    properties[field.name] = property;
    if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
  }
  // @oneOf: exactly one of its fields, each then required and non-null.
  if (type.isOneOf) {
    return described(
      {
        type: 'object',
        properties,
        oneOf: Object.keys(properties).map((name) => ({ required: [name] })),
        minProperties: 1,
        maxProperties: 1,
        additionalProperties: false,
      },
      type.description,
    );
  }
  return described({ type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }, type.description);
}

/** The description of the argument or input field each variable is passed to (the first such use). */
function variableDescriptions(schema: GraphQLSchema, operation: OperationDefinitionNode): Map<string, string> {
  const found = new Map<string, string>();
  const typeInfo = new TypeInfo(schema);
  // The input fields a variable sits in, innermost last (a variable may be a field of an input object literal).
  const inputFields: (string | undefined)[] = [];
  visit(
    operation,
    visitWithTypeInfo(typeInfo, {
      ObjectField: {
        enter(node) {
          const parent = getNamedType(typeInfo.getParentInputType() ?? undefined);
          inputFields.push(isInputObjectType(parent) ? (parent.getFields()[node.name.value]?.description ?? undefined) : undefined);
        },
        leave: () => void inputFields.pop(),
      },
      Variable(node) {
        const description = inputFields.length ? inputFields.at(-1) : typeInfo.getArgument()?.description;
        if (description && !found.has(node.name.value)) found.set(node.name.value, description);
      },
      VariableDefinition: () => false,
    }),
  );
  return found;
}

/** The input schema of a tool running `operation`: one property per variable, required when non-null without a default. */
export function variablesSchema(schema: GraphQLSchema, operation: OperationDefinitionNode): JsonSchema {
  const descriptions = variableDescriptions(schema, operation);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    if (!type) throw new Error(`operation ${operation.name?.value}: variable $${name} has a type the schema lacks`);
    let property = described(typeSchema(type), descriptions.get(name));
    if (definition.defaultValue) property = { ...property, default: valueFromASTUntyped(definition.defaultValue) };
    properties[name] = property;
    if (isNonNullType(type) && !definition.defaultValue) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}
