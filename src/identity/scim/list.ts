import { scimError } from './errors.ts';
import { filterSql, parseFilter, type Filterable, type SqlFilter } from './filter.ts';

export const LIST_URN = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
/** The most resources a page holds (ServiceProviderConfig's filter.maxResults); `count` above it is lowered to it. */
export const MAX_RESULTS = 200;
const DEFAULT_COUNT = 100;

export interface ListQuery {
  filter: SqlFilter | undefined;
  startIndex: number;
  count: number;
  attributes: string[] | undefined;
  excludedAttributes: string[] | undefined;
}

function integer(v: unknown, name: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || !/^-?\d{1,9}$/.test(v))
    throw scimError(400, 'invalidValue', `${name} must be an integer`);
  return Number(v);
}

function names(v: unknown, name: string): string[] | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 1000)
    throw scimError(400, 'invalidValue', `${name} must be a list of attributes`);
  return v
    .split(',')
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * RFC 7644 3.4.2: `filter`, `startIndex` (1-based; below 1 is 1) and `count` (below 0 is 0, above MAX_RESULTS is
 * MAX_RESULTS), `attributes` and `excludedAttributes`. Repeated parameters and unknown ones: the first, and ignored.
 * `sortBy` is not supported (ServiceProviderConfig says so) and is ignored.
 */
export function readListQuery(
  query: Record<string, unknown>,
  filterParamsFrom: number,
  resource: Filterable,
): ListQuery {
  const one = (k: string) => (Array.isArray(query[k]) ? (query[k] as unknown[])[0] : query[k]);
  const filterText = one('filter');
  if (filterText !== undefined && typeof filterText !== 'string')
    throw scimError(400, 'invalidFilter', 'filter must be a string');
  return {
    filter: filterText ? filterSql(parseFilter(filterText), filterParamsFrom, resource) : undefined,
    startIndex: Math.max(1, integer(one('startIndex'), 'startIndex') ?? 1),
    count: Math.min(MAX_RESULTS, Math.max(0, integer(one('count'), 'count') ?? DEFAULT_COUNT)),
    attributes: names(one('attributes'), 'attributes'),
    excludedAttributes: names(one('excludedAttributes'), 'excludedAttributes'),
  };
}

/**
 * RFC 7644 3.9: only the attributes asked for (a sub-attribute keeps its parent's other sub-attributes out), or all but
 * those excluded; `schemas` and `id` always.
 */
export function projected(
  resource: Record<string, unknown>,
  q: Pick<ListQuery, 'attributes' | 'excludedAttributes'>,
): Record<string, unknown> {
  const always = new Set(['schemas', 'id']);
  const strip = (a: string) => a.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/, '');
  if (q.attributes?.length) {
    const wanted = q.attributes.map(strip);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(resource)) {
      const key = k.toLowerCase();
      if (always.has(key) || wanted.includes(key)) out[k] = v;
      else {
        const subs = wanted.filter((w) => w.startsWith(`${key}.`)).map((w) => w.slice(key.length + 1));
        if (subs.length && v && typeof v === 'object' && !Array.isArray(v))
          out[k] = Object.fromEntries(Object.entries(v).filter(([s]) => subs.includes(s.toLowerCase())));
        else if (subs.length && Array.isArray(v))
          out[k] = v.map((e) => Object.fromEntries(Object.entries(e).filter(([s]) => subs.includes(s.toLowerCase()))));
      }
    }
    return out;
  }
  if (q.excludedAttributes?.length) {
    const excluded = q.excludedAttributes.map(strip);
    return Object.fromEntries(
      Object.entries(resource).filter(([k]) => always.has(k.toLowerCase()) || !excluded.includes(k.toLowerCase())),
    );
  }
  return resource;
}
