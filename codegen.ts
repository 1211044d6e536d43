import type { CodegenConfig } from '@graphql-codegen/cli';

// Types the example client operations in operations/ against the committed schema, and emits the
// persisted-documents manifest (hash → document) that trusted-documents mode serves from.
// CODEGEN_OUT lets the freshness test generate into a scratch folder and compare.
const out = process.env.CODEGEN_OUT ?? 'operations/__generated__/';

/**
 * Every custom scalar of schema.graphql as TypeScript sees it, for any client's codegen (docs/clients.md):
 * without it the client preset types them `any`. test/clients/codegen.test.ts fails when a scalar is missing.
 */
export const clientScalars = {
  DateTime: 'string', // ISO-8601, output in UTC
  Date: 'string', // YYYY-MM-DD, a Pacific calendar date
  SafeInt: 'number', // whole cents, exact up to 2^53 - 1
  JSONObject: 'Record<string, unknown>', // a webhook endpoint's subscription variables
} as const;

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['operations/**/*.graphql'],
  ignoreNoDocuments: false,
  // NodeNext resolution needs explicit .js extensions on the generated relative imports.
  emitLegacyCommonJSImports: false,
  generates: {
    [out]: {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { hashAlgorithm: 'sha256' },
      },
      config: {
        scalars: clientScalars,
        enumsAsTypes: true,
        useTypeImports: true,
      },
    },
  },
};

export default config;
