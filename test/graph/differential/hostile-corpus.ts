import type { Fixtures, Request } from '../../support/differential.js';

// Operations graphql-js accepts, each in the shapes that matter to coercion (a whole input as one variable,
// variables inside literal input objects and lists, nullable variables with defaults in non-null positions,
// @oneOf inputs, directives, the custom scalars DateTime/Date/SafeInt, enums, ID), and a generator of hostile
// variants of their variables: every value, at every depth, made null, left out and given the wrong type.

export interface Baseline {
  name: string;
  /** Writes run against a sandbox reset to its fixtures on each side (test/support/differential.ts). */
  kind: 'read' | 'write';
  query: string;
  variables: (f: Fixtures) => Record<string, unknown>;
}

export interface Variant {
  name: string;
  kind: 'read' | 'write';
  request: (f: Fixtures) => Request;
}

const CREATED = `__typename
  ... on CreateCampaignPayload { funding replayed orderId campaign { id status deliveryType priceInCents brandCodes expiry } }
  ... on ValidationError { message issues { path message } }
  ... on UpstreamRejected { message code }
  ... on IdempotencyConflict { message conflictingFields }
  ... on OutcomeUnknown { message retrySameIdIsSafe }`;

const FUNDED = `__typename
  ... on AddFundsPayload { funds { balances { currency availableInCents pendingInCents } } }
  ... on ValidationError { message issues { path message } }
  ... on UpstreamRejected { message code }`;

/** An expiry the gateway accepts whenever the test runs: within a year. */
const EXPIRY = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);

export const BASELINES: Baseline[] = [
  {
    name: 'createDirectLinks, the input as one variable',
    kind: 'write',
    query: `mutation($input: CreateDirectLinksInput!) { createDirectLinks(input: $input) { ${CREATED} } }`,
    variables: () => ({ input: { id: 'dl-whole', priceInCents: 1000, linkCount: 2, reward: { brand: 'sbxcoffeeus' }, expiry: EXPIRY } }),
  },
  {
    name: 'createDirectLinks, variables inside the literal input',
    kind: 'write',
    query: `mutation($id: ID!, $price: SafeInt!, $count: Int!, $reward: RewardChoice!, $expiry: Date) {
      createDirectLinks(input: { id: $id, priceInCents: $price, linkCount: $count, reward: $reward, expiry: $expiry }) { ${CREATED} } }`,
    variables: () => ({ id: 'dl-nested', price: 1000, count: 2, reward: { brand: 'sbxcoffeeus' }, expiry: EXPIRY }),
  },
  {
    name: 'createDirectLinks, variables inside a list inside the @oneOf literal',
    kind: 'write',
    query: `mutation($id: ID!, $first: String!, $second: String!) {
      createDirectLinks(input: { id: $id, priceInCents: 1000, linkCount: 1, reward: { brands: [$first, $second] } }) { ${CREATED} } }`,
    variables: () => ({ id: 'dl-list', first: 'sbxcoffeeus', second: 'sbxbooksus' }),
  },
  {
    name: 'createDirectLinks, a list variable inside the @oneOf literal',
    kind: 'write',
    query: `mutation($id: ID!, $brands: [String!]!) {
      createDirectLinks(input: { id: $id, priceInCents: 1000, linkCount: 1, reward: { brands: $brands } }) { ${CREATED} } }`,
    variables: () => ({ id: 'dl-list-variable', brands: ['sbxcoffeeus', 'sbxbooksus'] }),
  },
  {
    name: 'createDirectLinks, the @oneOf member as a variable inside the literal',
    kind: 'write',
    query: `mutation($id: ID!, $brand: String!) {
      createDirectLinks(input: { id: $id, priceInCents: 1000, linkCount: 1, reward: { brand: $brand } }) { ${CREATED} } }`,
    variables: () => ({ id: 'dl-oneof', brand: 'sbxcoffeeus' }),
  },
  {
    name: 'createDirectLinks, nullable variables with defaults in non-null positions',
    kind: 'write',
    query: `mutation($id: ID!, $reward: RewardChoice = { brand: "sbxcoffeeus" }, $count: Int = 1) {
      createDirectLinks(input: { id: $id, priceInCents: 1000, linkCount: $count, reward: $reward }) { ${CREATED} } }`,
    variables: () => ({ id: 'dl-defaults', reward: { brand: 'sbxcoffeeus' }, count: 1 }),
  },
  {
    name: 'createDirectLinks, a nullable variable with a default in a literal list',
    kind: 'write',
    query: `mutation($id: ID!, $second: String = "sbxbooksus") {
      createDirectLinks(input: { id: $id, priceInCents: 1000, linkCount: 1, reward: { brands: ["sbxcoffeeus", $second] } }) { ${CREATED} } }`,
    variables: () => ({ id: 'dl-defaults-list', second: 'sbxbooksus' }),
  },
  {
    name: 'createCampaign, variables inside a literal list of literal contacts',
    kind: 'write',
    query: `mutation($id: ID!, $price: SafeInt!, $reward: RewardChoice!, $type: DeliveryType, $email: String!, $name: String, $expiry: Date) {
      createCampaign(input: { id: $id, priceInCents: $price, reward: $reward, deliveryType: $type, expiry: $expiry,
        contacts: [{ email: $email, firstName: $name }, { email: "grace@example.com" }], subject: "Hi", message: "Thanks" }) { ${CREATED} } }`,
    variables: () => ({
      id: 'cc-nested',
      price: 2500,
      reward: { brands: ['sbxcoffeeus', 'sbxbooksus'] },
      type: 'EMAIL',
      email: 'ada@example.com',
      name: 'Ada',
      expiry: EXPIRY,
    }),
  },
  {
    name: 'createCampaign, the input as one variable',
    kind: 'write',
    query: `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { ${CREATED} } }`,
    variables: () => ({
      input: {
        id: 'cc-whole',
        priceInCents: 2500,
        reward: { region: 'USA' },
        deliveryType: 'SHORTLINK',
        linkCount: 2,
        subject: 'Hi',
        message: 'Thanks',
      },
    }),
  },
  {
    name: 'addFunds, variables inside the literal input',
    kind: 'write',
    query: `mutation($id: ID!, $amount: SafeInt!, $currency: String!) { addFunds(input: { id: $id, amountInCents: $amount, currency: $currency }) { ${FUNDED} } }`,
    variables: () => ({ id: 'af-nested', amount: 30_000, currency: 'USD' }),
  },
  {
    name: 'addFunds, the input as one variable with a default',
    kind: 'write',
    query: `mutation($input: AddFundsInput! = { id: "af-default", amountInCents: 40000, currency: "CAD" }) { addFunds(input: $input) { ${FUNDED} } }`,
    variables: () => ({ input: { id: 'af-whole', amountInCents: 30_000, currency: 'USD' } }),
  },
  {
    name: 'createEmbeddedReward, variables inside the literal input',
    kind: 'write',
    query: `mutation($id: ID!, $brand: String!, $price: SafeInt!) { createEmbeddedReward(input: { id: $id, brand: $brand, priceInCents: $price }) {
      __typename ... on CreateEmbeddedRewardPayload { replayed campaign { id status deliveryType } } ... on ValidationError { message issues { path message } } } }`,
    variables: () => ({ id: 'em-nested', brand: 'sbxcoffeeus', price: 1000 }),
  },
  {
    name: 'cancelCampaign and cancelGift, a nullable ref with a default in a non-null argument',
    kind: 'write',
    query: `mutation($ref: ID = "differential-links", $gift: ID!) {
      links: cancelCampaign(ref: $ref) { __typename ... on CancelCampaignPayload { alreadyFinal campaign { id status } } ... on NotFound { ref } }
      gift: cancelGift(uuid: $gift) { __typename ... on GiftPayload { gift { status } } ... on NotFound { ref } } }`,
    variables: (f) => ({ ref: f.links.id, gift: f.giftUuid }),
  },
  {
    name: 'resendGift',
    kind: 'write',
    query: `mutation($uuid: ID!) { resendGift(uuid: $uuid) { __typename ... on GiftPayload { gift { status redeliveryCount } } ... on NotFound { ref } } }`,
    variables: (f) => ({ uuid: f.giftUuid }),
  },
  {
    name: 'campaigns, variables inside a literal list',
    kind: 'read',
    query: `query($a: ID!, $b: ID!) { campaigns(refs: [$a, $b, "no-such-order"]) { id uuid status deliveryType } }`,
    variables: (f) => ({ a: f.email.id, b: f.links.uuid }),
  },
  {
    name: 'campaigns, the list as one variable',
    kind: 'read',
    query: `query($refs: [ID!]!) { campaigns(refs: $refs) { id status gifts(first: 1) { totalCount } } }`,
    variables: (f) => ({ refs: [f.email.uuid, f.links.id] }),
  },
  {
    name: 'campaign, a nullable ref with a default, directly and inside a list',
    kind: 'read',
    query: `query($ref: ID = "differential-email") { campaign(ref: $ref) { id expiry expiresAt } campaigns(refs: [$ref]) { id } }`,
    variables: (f) => ({ ref: f.links.id }),
  },
  {
    name: 'gifts, variables inside nested literal filters (DateTime, ID, enums, SafeInt)',
    kind: 'read',
    query: `query($n: Int, $c: ID, $since: DateTime, $status: GiftStatus, $delivery: DeliveryStatus, $field: GiftSortField!, $dir: SortDirection, $above: SafeInt,
      $resent: Int) {
      gifts(first: $n, filter: { campaignId: $c, createdDateGreaterThan: $since, status: $status, deliveryStatus: $delivery, priceInCentsGreaterThan: $above,
        redeliveryCountLessThan: $resent, sort: { field: $field, direction: $dir } }) { totalCount edges { node { uuid status deliveryStatus recipientEmail priceInCents } } } }`,
    variables: (f) => ({
      n: 5,
      c: f.email.id,
      since: '2001-01-01T00:00:00Z',
      status: 'SENT_AND_REDEEMABLE',
      delivery: 'UNSENT',
      field: 'RECIPIENT_EMAIL',
      dir: 'ASC',
      above: 10,
      resent: 5,
    }),
  },
  {
    name: 'gifts, the filter as one variable',
    kind: 'read',
    query: `query($filter: GiftFilter, $n: Int = 3) { gifts(filter: $filter, first: $n) { totalCount edges { node { uuid createdDate expiry } } } }`,
    variables: (f) => ({
      filter: {
        campaignUuid: f.email.uuid,
        createdDateLessThan: '2999-01-01T00:00:00.000Z',
        priceInCentsLessThan: 5000,
        redeliveryCountGreaterThan: 0,
        sort: { field: 'STATUS' },
      },
      n: 2,
    }),
  },
  {
    name: 'gifts, custom scalar and Int defaults',
    kind: 'read',
    query: `query($since: DateTime = "2001-01-01T00:00:00Z", $n: Int = 3, $above: SafeInt = 1) {
      gifts(first: $n, filter: { createdDateGreaterThan: $since, priceInCentsGreaterThan: $above }) { totalCount } }`,
    variables: () => ({ since: '2002-02-02T02:02:02Z', n: 1, above: 5 }),
  },
  {
    name: 'brands, variables inside the literal filter',
    kind: 'read',
    query: `query($min: SafeInt, $region: String, $embeddable: Boolean, $first: Int) {
      brands(filter: { minPriceInCents: $min, region: $region, embeddable: $embeddable }, first: $first) {
        totalCount edges { node { brandCode embeddable priceOptions { __typename ... on PriceRange { minInCents maxInCents } } } } } }`,
    variables: () => ({ min: 500, region: 'USA', embeddable: true, first: 3 }),
  },
  {
    name: 'brands, the filter as one variable',
    kind: 'read',
    query: `query($filter: BrandFilter) { brands(filter: $filter, first: 2) { totalCount edges { node { brandCode currency } } } }`,
    variables: () => ({ filter: { currency: 'usd', maxPriceInCents: 100_000, search: 'coffee' } }),
  },
  {
    name: 'directives with variables, one nullable with a default',
    kind: 'read',
    query: `query($skip: Boolean = false, $include: Boolean!) { viewer { username @skip(if: $skip) displayName @include(if: $include) } regions @include(if: $include) { id } }`,
    variables: () => ({ skip: true, include: true }),
  },
  {
    name: 'directives on fragments, aliases with different arguments',
    kind: 'read',
    query: `query($withBrand: Boolean!, $n: Int = 2, $a: ID!, $b: ID!) {
      a: campaign(ref: $a) { id ...Rewards }
      b: campaign(ref: $b) { id ... on Campaign @include(if: $withBrand) { brandCodes } }
      gifts(first: $n) { edges { node { ...Reward @skip(if: $withBrand) uuid } } } }
      fragment Rewards on Campaign { gifts(first: $n) { totalCount edges { node { ...Reward } } } }
      fragment Reward on Gift { status brand @include(if: $withBrand) { name } }`,
    variables: (f) => ({ withBrand: true, n: 1, a: f.email.id, b: f.links.uuid }),
  },
  {
    name: 'node and gift by id',
    kind: 'read',
    query: `query($node: ID!, $gift: ID!) { node(id: $node) { nodeId __typename } gift(uuid: $gift) { uuid status expiry expiresAt campaign { id } } }`,
    variables: (f) => ({ node: 'bm90LWEtbm9kZQ', gift: f.giftUuid }),
  },
];

/** Wrongly typed stand-ins for a value: each is refused somewhere in the schema, or coerced in a way that matters. */
function wrongValues(value: unknown): unknown[] {
  if (typeof value === 'string') {
    const wrong: unknown[] = [12.5, 123, '', 'x'.repeat(5_000)];
    if (/^[A-Z_]+$/.test(value)) wrong.push(value.toLowerCase());
    if (/^\d{4}-\d\d-\d\d/.test(value)) wrong.push(value.replace(/^(\d{4})-\d\d-\d\d/, '$1-02-30'), 'not-a-date');
    return wrong;
  }
  if (typeof value === 'number') return ['12', value + 0.5, 2 ** 31, 2 ** 53, -1, 0];
  if (typeof value === 'boolean') return ['true', 1];
  if (Array.isArray(value)) return [value[0], [], [null], {}];
  if (value && typeof value === 'object') return ['x', [value], {}, { ...value, bogus: 1 }];
  return [];
}

type Path = (string | number)[];

/** Every path into the variables, the variables themselves excluded, outermost first. */
function pathsOf(value: unknown, at: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...at, key], ...pathsOf(child, [...at, key])]);
}

/** The variables with the value at `path` replaced (a copy); `undefined` removes it. */
function replaced(variables: unknown, path: Path, value: unknown): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return value;
  if (Array.isArray(variables)) {
    const copy = [...variables];
    if (rest.length === 0 && value === undefined) copy.splice(key as number, 1);
    else copy[key as number] = replaced(copy[key as number], rest, value);
    return copy;
  }
  const copy = { ...(variables as Record<string, unknown>) };
  if (rest.length === 0 && value === undefined) delete copy[key];
  else copy[key] = replaced(copy[key], rest, value);
  return copy;
}

function valueAt(variables: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, key) => (v as Record<string | number, unknown>)[key], variables);
}

/** The baseline as it is, then every value at every depth null, left out and wrongly typed. */
export function variantsOf(baseline: Baseline): Variant[] {
  const variant = (name: string, change: (v: Record<string, unknown>) => unknown): Variant => ({
    name: `${baseline.name}: ${name}`,
    kind: baseline.kind,
    request: (f) => ({ query: baseline.query, variables: change(baseline.variables(f)) }),
  });
  // The shape of the variables does not depend on the fixtures' values, only on which exist.
  const shape = baseline.variables({ email: { id: 'e', uuid: 'e' }, links: { id: 'l', uuid: 'l' }, giftUuid: 'g' });
  const variants = [variant('as is', (v) => v)];
  for (const path of pathsOf(shape)) {
    const at = path.join('.');
    variants.push(variant(`${at} null`, (v) => replaced(v, path, null)));
    variants.push(variant(`${at} left out`, (v) => replaced(v, path, undefined)));
    for (const wrong of wrongValues(valueAt(shape, path))) {
      variants.push(variant(`${at} = ${JSON.stringify(wrong)}`, (v) => replaced(v, path, wrong)));
    }
  }
  return variants;
}

/** Hostile requests no baseline's variants make: two @oneOf members, variables that are not an object, and so on. */
export const ODD_REQUESTS: Variant[] = [
  {
    name: 'two @oneOf members in a variable',
    kind: 'write',
    request: () => ({
      query: BASELINES[0]!.query,
      variables: { input: { id: 'odd-1', priceInCents: 1000, linkCount: 1, reward: { brand: 'sbxcoffeeus', region: 'USA' } } },
    }),
  },
  {
    name: 'a @oneOf member explicitly null beside another',
    kind: 'write',
    request: () => ({
      query: BASELINES[0]!.query,
      variables: { input: { id: 'odd-2', priceInCents: 1000, linkCount: 1, reward: { brand: 'sbxcoffeeus', region: null } } },
    }),
  },
  {
    name: 'two @oneOf members in a literal',
    kind: 'write',
    request: () => ({
      query: `mutation { createDirectLinks(input: { id: "odd-3", priceInCents: 1000, linkCount: 1, reward: { brand: "sbxcoffeeus", region: "USA" } }) { __typename } }`,
    }),
  },
  {
    name: 'a nullable variable in a @oneOf literal',
    kind: 'write',
    request: () => ({
      query: `mutation($b: String) { createDirectLinks(input: { id: "odd-4", priceInCents: 1000, linkCount: 1, reward: { brand: $b } }) { __typename } }`,
      variables: { b: 'sbxcoffeeus' },
    }),
  },
  {
    name: 'a nullable variable without a default in a non-null position',
    kind: 'write',
    request: () => ({
      query: `mutation($r: RewardChoice) { createDirectLinks(input: { id: "odd-5", priceInCents: 1000, linkCount: 1, reward: $r }) { __typename } }`,
      variables: { r: null },
    }),
  },
  {
    name: 'variables that are a list',
    kind: 'read',
    request: () => ({ query: 'query($n: Int) { brands(first: $n) { totalCount } }', variables: [1] }),
  },
  {
    name: 'variables that are a string',
    kind: 'read',
    request: () => ({ query: 'query($n: Int) { brands(first: $n) { totalCount } }', variables: 'n=1' }),
  },
  {
    name: 'a variable the operation does not define',
    kind: 'read',
    request: () => ({ query: '{ regions { id } }', variables: { extra: { deep: [1] } } }),
  },
  { name: 'an unknown operation name', kind: 'read', request: () => ({ query: 'query A { regions { id } }', operationName: 'B' }) },
  { name: 'two operations and no name', kind: 'read', request: () => ({ query: 'query A { regions { id } } query B { viewer { username } }' }) },
  { name: 'a syntax error', kind: 'read', request: () => ({ query: 'query($n: Int) { brands(first: $n) {' }) },
  { name: 'a default of the wrong type', kind: 'read', request: () => ({ query: 'query($n: Int = "many") { brands(first: $n) { totalCount } }' }) },
  { name: 'a variable of an output type', kind: 'read', request: () => ({ query: 'query($b: Brand) { regions { id } }', variables: { b: {} } }) },
  {
    name: 'a SafeInt beyond 2^53 - 1',
    kind: 'read',
    request: () => ({ query: 'query($min: SafeInt) { brands(filter: { minPriceInCents: $min }) { totalCount } }', variables: { min: 2 ** 53 } }),
  },
  {
    name: 'a list variable given a single value inside a literal',
    kind: 'read',
    request: (f) => ({ query: 'query($r: [ID!]!) { campaigns(refs: $r) { id } }', variables: { r: f.email.id } }),
  },
];
