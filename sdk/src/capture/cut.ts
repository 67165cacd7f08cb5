/**
 * The first `max` UTF-16 units of a text, never ending in half of a surrogate pair (an emoji cut in two): the service
 * refuses an event holding an unpaired surrogate, since PostgreSQL cannot store one.
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.charCodeAt(max - 1);
  return text.slice(0, end >= 0xd800 && end <= 0xdbff ? max - 1 : max);
}
