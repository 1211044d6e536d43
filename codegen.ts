import type { CodegenConfig } from '@graphql-codegen/cli';

// Types the example client operations in operations/ against the committed schema, and emits the
// persisted-documents manifest (hash → document) that trusted-documents mode serves from.
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['operations/**/*.graphql'],
  ignoreNoDocuments: false,
  // NodeNext resolution needs explicit .js extensions on the generated relative imports.
  emitLegacyCommonJSImports: false,
  generates: {
    'operations/__generated__/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { hashAlgorithm: 'sha256' },
      },
      config: {
        scalars: { DateTime: 'string', Date: 'string' },
        enumsAsTypes: true,
        useTypeImports: true,
      },
    },
  },
};

export default config;
