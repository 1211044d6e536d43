import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import SimpleObjectsPlugin from '@pothos/plugin-simple-objects';
import ZodPlugin from '@pothos/plugin-zod';
import type { GatewayContext } from '../context.js';
import { InputValidationError } from './validation-error.js';

// Set-up only: type files add the types and their root fields.
// Convention: root query fields that reach the upstream are nullable, so one failing upstream call nulls
// only its own field and its siblings keep their data.

export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: string; Output: string };
    ID: { Input: string; Output: string };
  };
}>({
  plugins: [ErrorsPlugin, ZodPlugin, RelayPlugin, SimpleObjectsPlugin],
  defaultFieldNullability: false,
  relay: {
    // `id` is the caller's own idempotency key on campaigns (the upstream's name), so the Relay global id
    // lives under another name rather than shadowing it.
    idFieldName: 'nodeId',
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesQueryOptions: false,
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
  },
  errors: {
    defaultTypes: [],
    // Lets zod input validation failures come back as the ValidationError member of a mutation's union.
    unsafelyHandleInputErrors: true,
  },
  zod: {
    validationError: (zodError) => InputValidationError.fromZod(zodError),
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
