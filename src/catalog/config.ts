import { configArea, documented, nonNegativeMs, type AreaSettings } from '../shared/config-area.js';

// The catalog area's environment variable, composed by src/config.ts.

export const catalogArea = configArea({
  title: 'Catalog',
  variables: {
    CATALOG_CACHE_TTL_MS: documented(nonNegativeMs.default(300_000), {
      description: 'how long brand details and regions stay cached for the whole process; the catalog changes rarely',
    }),
  },
});

export type CatalogSettings = AreaSettings<typeof catalogArea>;
