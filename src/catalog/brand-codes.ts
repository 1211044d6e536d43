import { distance } from 'fastest-levenshtein';
import type { UpstreamClient } from '../upstream/types.js';

// Brand codes as callers type them: the upstream matches codes exactly, while people (and regions, which the
// gateway already matches by name ignoring case) expect "SBXCOFFEEUS" to mean "sbxcoffeeus". The gateway
// resolves a code against the catalog's own list ignoring case, and suggests near misses.

/** The upstream's largest page; the whole catalog is a handful of pages. */
const PAGE = 100;

/** Every brand code of the catalog, read page by page. */
export async function listBrandCodes(client: UpstreamClient): Promise<string[]> {
  const codes: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.listBrands({ limit: PAGE, offset });
    codes.push(...page.items.map((brand) => brand.brandCode));
    if (page.items.length === 0 || offset + page.items.length >= page.totalCount) return codes;
  }
}

export interface CodeMatch {
  /** The catalog's spelling of the code, when it differs from what was asked only in case. */
  code: string | null;
  /** Close codes (typos), best first; empty when one matched or nothing is close. */
  suggestions: string[];
}

export function matchBrandCode(asked: string, known: readonly string[]): CodeMatch {
  const wanted = asked.trim().toLowerCase();
  const code = known.find((candidate) => candidate.toLowerCase() === wanted) ?? null;
  if (code) return { code, suggestions: [] };
  // A third of the length, at least 2: catches a dropped or swapped letter, not a different brand.
  const tolerance = Math.max(2, Math.floor(wanted.length / 3));
  const suggestions = known
    .map((candidate) => ({ candidate, d: distance(wanted, candidate.toLowerCase()) }))
    .filter(({ d }) => d <= tolerance)
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate);
  return { code: null, suggestions };
}
