import type { GraphQLError } from 'graphql';
import { describeFailure, gatewayError } from '../errors/gateway-error.js';
import type { Loaders } from '../graph/loaders.js';
import { InputValidationError, type ValidationIssueShape } from './errors.js';
import type { Brand } from '../upstream/types.js';
import { isUpstreamError } from '../upstream/errors.js';

// Checks the brand choice of an order against the (cached) catalog before anything is sent upstream, so a
// caller hears "that price is not offered" from us instead of a 422 after a round trip. The catalog also gives
// the upstream's spelling of what the caller typed (codes and region names match ignoring case), so the body of
// a create depends on it: when it cannot be read nothing is sent. Sending the caller's spelling instead would
// let a retry under the same id carry another body (the catalog readable by then) and be refused as a
// different order.

export interface RewardChoiceInput {
  brand?: string | null;
  brands?: string[] | null;
  region?: string | null;
}

/** What to send upstream: brand codes, or the region's canonical name. */
export interface ResolvedChoice {
  brandCodes?: string[];
  region?: string;
}

function priceIssue(brand: Brand, price: number): string | null {
  if (brand.variablePrice && brand.minPriceInCents != null && brand.maxPriceInCents != null) {
    return price < brand.minPriceInCents || price > brand.maxPriceInCents
      ? `${brand.brandCode} offers ${brand.minPriceInCents}..${brand.maxPriceInCents} cents, not ${price}`
      : null;
  }
  if (brand.allowedPricesInCents && !brand.allowedPricesInCents.includes(price)) {
    return `${brand.brandCode} offers only ${brand.allowedPricesInCents.join(', ')} cents, not ${price}`;
  }
  return null;
}

export async function resolveRewardChoice(
  choice: RewardChoiceInput,
  priceInCents: number,
  loaders: Loaders,
  options: { path?: string[]; embeddable?: boolean } = {},
): Promise<ResolvedChoice> {
  const base = options.path ?? ['input', 'reward'];
  const issues: ValidationIssueShape[] = [];

  if (choice.region != null) {
    const regions = await loaders.regions().catch(unlessCircuitOpen(null));
    if (!regions) throw catalogUnavailable();
    const match = regions.find((r) => r.name.toLowerCase() === choice.region!.trim().toLowerCase());
    if (!match) {
      throw new InputValidationError([
        { path: [...base, 'region'], message: `is not a known region; known: ${regions.map((r) => r.name).join(', ')}` },
      ]);
    }
    return { region: match.name };
  }

  const single = choice.brand != null;
  const codes = single ? [choice.brand!] : (choice.brands ?? []);
  // undefined: the catalog could not be read; null: the catalog does not know the brand.
  const read = await Promise.all(codes.map((code) => loaders.brand.load(code).catch(unlessCircuitOpen(undefined))));
  if (read.includes(undefined)) throw catalogUnavailable();
  const brands = read as (Brand | null)[];
  const currencies = new Set<string>();
  const unknown: { path: string[]; code: string }[] = [];
  brands.forEach((brand, i) => {
    const path = single ? [...base, 'brand'] : [...base, 'brands', String(i)];
    if (brand === null) {
      unknown.push({ path, code: codes[i]! });
      return;
    }
    const problem = priceIssue(brand, priceInCents);
    if (problem) issues.push({ path: single ? ['input', 'priceInCents'] : path, message: problem });
    if (options.embeddable && !brand.embeddable) {
      issues.push({ path, message: `${brand.brandCode} cannot be sent as an embedded reward` });
    }
    if (brand.currency) currencies.add(brand.currency);
  });
  if (currencies.size > 1) {
    issues.push({ path: [...base, 'brands'], message: `mixes currencies (${[...currencies].join(', ')}); one order has one currency` });
  }
  for (const { path, code } of unknown) {
    const near = await loaders.brandSuggestions(code).catch(() => []);
    issues.push({ path, message: describeFailure('BAD_USER_INPUT', { reason: 'unknown-brand', brandCode: code, suggestions: near }).message });
  }
  if (issues.length) throw new InputValidationError(issues);
  // The catalog's spelling: codes match ignoring case here, exactly upstream.
  return { brandCodes: brands.map((brand) => brand!.brandCode) };
}

/** A failed catalog read as `fallback`; an open circuit breaker stays itself, for the mutation to answer UpstreamUnavailable. */
function unlessCircuitOpen<T>(fallback: T): (error: unknown) => T {
  return (error) => {
    if (isUpstreamError(error) && error.kind === 'circuit_open') throw error;
    return fallback;
  };
}

/** Nothing was sent, so retrying is safe (and the only way on: the same id, the same input). */
function catalogUnavailable(): GraphQLError {
  return gatewayError('CATALOG_UNAVAILABLE');
}
