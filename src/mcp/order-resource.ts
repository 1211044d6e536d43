import { createHash } from 'node:crypto';
import type { ResourceLink, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';

// An order as an MCP resource: `reward://campaign/<uuid>`, read with the GetOrder operation (so it needs what
// that tool needs, and runs through the same pipeline), and linked from every tool answer that names an order
// (`orderUuid`, as CreateReward's does), so an agent can keep it in its context or read it again later.

/** The tool whose operation reads an order resource; without it (not in the manifest) there are no resources. */
export const READ_ORDER_TOOL = 'GetOrder';

const PREFIX = 'reward://campaign/';

export const ORDER_TEMPLATE: ResourceTemplate = {
  uriTemplate: `${PREFIX}{uuid}`,
  name: 'order',
  title: 'Reward order',
  description: 'An order of rewards by its uuid (CreateReward answers with its link): status, value, fees and its first rewards.',
  mimeType: 'application/json',
};

export const orderUri = (uuid: string): string => `${PREFIX}${encodeURIComponent(uuid)}`;

/** The order uuid a resource URI names, or null when it names no order. */
export function orderUuidOf(uri: string): string | null {
  if (!uri.startsWith(PREFIX)) return null;
  const rest = uri.slice(PREFIX.length);
  if (!rest || /[/?#]/.test(rest)) return null;
  try {
    return decodeURIComponent(rest);
  } catch {
    return null;
  }
}

/** A link to each order a tool's data names by `orderUuid` at its root fields. */
export function orderLinks(data: Record<string, unknown> | null | undefined): ResourceLink[] {
  const links: ResourceLink[] = [];
  for (const value of Object.values(data ?? {})) {
    const { orderUuid, orderId } = (value ?? {}) as { orderUuid?: unknown; orderId?: unknown };
    if (typeof orderUuid !== 'string') continue;
    links.push({
      type: 'resource_link',
      uri: orderUri(orderUuid),
      name: `order ${typeof orderId === 'string' ? orderId : orderUuid}`,
      mimeType: 'application/json',
    });
  }
  return links;
}

/**
 * What a subscription compares: a hash of a resource's read (the operation's data), the same for the same order
 * on every replica (the execution's field order is the document's).
 */
export const resourceHash = (data: unknown): string => createHash('sha256').update(JSON.stringify(data)).digest('base64url').slice(0, 22);
