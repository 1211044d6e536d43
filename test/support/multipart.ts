/** The JSON bodies of a multipart/mixed answer (`@defer`, `@stream`), in order. */
export function multipartParts(text: string): any[] {
  return text
    .split(/\r?\n---/)
    .map((part) => part.slice(part.indexOf('{')))
    .filter((part) => part.startsWith('{'))
    .map((part) => JSON.parse(part.slice(0, part.lastIndexOf('}') + 1)));
}
