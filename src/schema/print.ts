import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './index.js';

/** The committed SDL: sorted, so a moved field definition does not show up as a diff. */
export function printSchemaFile(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
