/**
 * Text for XML 1.0 content and attribute values: the five markup characters escaped, and the characters XML 1.0
 * cannot carry at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF) dropped, since a page's markup may hold any.
 */
export function xmlText(value: string): string {
  return value.replace(NOT_IN_XML, '').replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
}

const NOT_IN_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 cannot carry, dropped on purpose
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** An element with escaped attributes and already-built children (or escaped text). */
export function element(name: string, attributes: Record<string, string | number | undefined>, children = ''): string {
  const attrs = Object.entries(attributes)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => ` ${k}="${xmlText(String(v))}"`)
    .join('');
  return children ? `<${name}${attrs}>${children}</${name}>` : `<${name}${attrs}/>`;
}
