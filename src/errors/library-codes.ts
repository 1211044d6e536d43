import type { Surface } from './catalogue.js';

// Codes a client can get from the gateway that yoga raises itself, with its own messages: no module of the
// gateway raises them, so they are listed for docs/errors.md only. (yoga's BAD_REQUEST, for a body that is no
// GraphQL request, shares the gateway's code and is described with it in the catalogue.)

export interface LibraryCode {
  surface: Surface;
  status: number;
  /** GraphQL over HTTP's rule for refused documents: 200 instead to a client that accepts only application/json. */
  okToJsonClients: boolean;
  when: string;
  fix: string;
}

export const LIBRARY_CODES = {
  GRAPHQL_PARSE_FAILED: {
    surface: 'document',
    status: 400,
    okToJsonClients: true,
    when: 'The document is not valid GraphQL syntax.',
    fix: 'Correct the syntax at the location the error gives.',
  },
  GRAPHQL_VALIDATION_FAILED: {
    surface: 'document',
    status: 400,
    okToJsonClients: true,
    when:
      'The document does not fit the schema (an unknown field, a missing argument…), or asks for introspection where ' +
      '`INTROSPECTION` is off (the default in production).',
    fix: 'Check the document against `schema.graphql`; get the schema from the repository rather than by introspection.',
  },
  OPERATION_RESOLUTION_FAILURE: {
    surface: 'document',
    status: 400,
    okToJsonClients: false,
    when: 'The document holds several operations and `operationName` names none of them (or is missing).',
    fix: 'Send `operationName` with the name of the operation to run.',
  },
} as const satisfies Record<string, LibraryCode>;
