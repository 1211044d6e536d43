import type { CodegenConfig } from '@graphql-codegen/cli';

// Types the example client operations in operations/ against the committed schema, and emits the
// persisted-documents manifest (hash → document) that trusted-documents mode serves from.
// CODEGEN_OUT lets the freshness test generate into a scratch folder and compare.
const out = process.env.CODEGEN_OUT ?? 'operations/__generated__/';

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
        scalars: { DateTime: 'string', Date: 'string', SafeInt: 'number' },
        enumsAsTypes: true,
        useTypeImports: true,
      },
    },
  },
};

export default config;
