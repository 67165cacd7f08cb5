import { validation } from '../errors.ts';

export const MAX_TAGS = 10;
export const MAX_TAG_LENGTH = 40;

/**
 * A dashboard's tags as stored: trimmed, 1 to 40 characters, at most 10, unique ignoring case (the first spelling
 * stays), as Grafana's dashboard tags. Anything else is a 400 naming the tag.
 */
export function checkTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = raw.trim();
    if (tag.length < 1 || tag.length > MAX_TAG_LENGTH)
      throw validation(`tags: each tag is 1 to ${MAX_TAG_LENGTH} characters once trimmed ("${raw.slice(0, 60)}")`);
    const key = tag.toLowerCase();
    if (seen.has(key)) throw validation(`tags: "${tag}" is given twice (tags ignore case)`);
    seen.add(key);
    out.push(tag);
  }
  if (out.length > MAX_TAGS) throw validation(`tags: at most ${MAX_TAGS} tags`);
  return out;
}

export const tagKeys = (tags: readonly string[]) => tags.map((t) => t.toLowerCase());
