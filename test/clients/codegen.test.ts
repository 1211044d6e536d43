import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import { buildSchema, isScalarType, specifiedScalarTypes } from 'graphql';
import { describe, expect, it } from 'vitest';
import { clientScalars } from '../../codegen.js';

// The client recipe of docs/clients.md: GraphQL Code Generator's client preset with the project's scalar
// mapping, run on a client's own operation, and the generated types checked by tsc in a client's code. A
// scalar left out of the mapping would be `any` there.

const root = fileURLToPath(new URL('../../', import.meta.url));
const builtIn = new Set(specifiedScalarTypes.map((t) => t.name));

const OPERATION = /* GraphQL */ `
  query Dashboard($ref: ID!, $minPrice: SafeInt) {
    campaign(ref: $ref) {
      uuid
      status
      expiry
      expiresAt
      priceInCents
      ... @defer {
        gifts {
          edges {
            node {
              uuid
              status
            }
          }
        }
      }
    }
    brands(filter: { minPriceInCents: $minPrice }, first: 5) {
      totalCount
    }
  }
`;

// What a client writes with the generated types: each assignment fails to compile if a scalar is `any`-typed
// the wrong way round, or missing.
const CLIENT_CODE = `
import type { DashboardQuery, DashboardQueryVariables } from './gql/graphql.js';

type Campaign = NonNullable<DashboardQuery['campaign']>;
type IsAny<T> = 0 extends 1 & T ? true : false;
const notAny: [IsAny<Campaign['priceInCents']>, IsAny<Campaign['expiresAt']>, IsAny<Campaign['expiry']>] = [false, false, false];
const cents: number = null as unknown as Campaign['priceInCents'];
const instant: string | null | undefined = null as unknown as Campaign['expiresAt'];
const day: string | null | undefined = null as unknown as Campaign['expiry'];
const variables: DashboardQueryVariables = { ref: 'thank-you-0001', minPrice: 500 };
// @ts-expect-error a SafeInt variable is a number, not a string
const wrong: DashboardQueryVariables = { ref: 'x', minPrice: '500' };
export { notAny, cents, instant, day, variables, wrong };
`;

describe('client codegen recipe', () => {
  it('maps every custom scalar of schema.graphql', () => {
    const schema = buildSchema(readFileSync(join(root, 'schema.graphql'), 'utf8'));
    const custom = Object.values(schema.getTypeMap())
      .filter((t) => isScalarType(t) && !builtIn.has(t.name))
      .map((t) => t.name);
    expect(Object.keys(clientScalars).sort()).toEqual(custom.sort());
  });

  it('the client preset types an example operation, and tsc accepts the client code using it', async () => {
    const scratch = join(root, 'node_modules/.cache/client-codegen');
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    try {
      writeFileSync(join(scratch, 'dashboard.graphql'), OPERATION);
      await generate(
        {
          schema: join(root, 'schema.graphql'),
          documents: [join(scratch, '*.graphql')],
          emitLegacyCommonJSImports: false,
          silent: true,
          generates: { [join(scratch, 'gql/')]: { preset: 'client', config: { scalars: clientScalars, useTypeImports: true } } },
        },
        true,
      );
      writeFileSync(join(scratch, 'client.ts'), CLIENT_CODE);
      const tsc = join(root, 'node_modules/typescript/bin/tsc');
      // Only the standard library and Node's types: by default tsc also reads the DOM's and every @types package in
      // node_modules (~40% of its CPU here), which neither the client code nor the generated types use.
      const flags = '--noEmit --strict --skipLibCheck --module nodenext --moduleResolution nodenext --target es2022 --lib es2022 --types node'.split(
        ' ',
      );
      let diagnostics = '';
      try {
        execFileSync(process.execPath, [tsc, ...flags, join(scratch, 'client.ts')], { cwd: root, stdio: 'pipe' });
      } catch (error) {
        diagnostics = String((error as { stdout?: Buffer }).stdout ?? error);
      }
      expect(diagnostics).toBe('');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 120_000);
});
