/** The most types a read's `type` or `exclude_type` names (routes.ts): ingest's contract has 15 (events/fields.ts). */
export const MAX_TYPES = 20;

/** Which event types a read keeps: those of `type` (one or several) when given, never those of `excludeType`. */
export interface TypeFilter {
  type?: string | readonly string[] | undefined;
  excludeType?: readonly string[] | undefined;
}

/** The filter's types without repeats (a type named twice would be probed and counted twice); empty lists as none. */
export function typesOf(filter: TypeFilter): { only?: string[]; except?: string[] } {
  const only = filter.type === undefined ? [] : [...new Set([filter.type].flat())];
  const except = [...new Set(filter.excludeType ?? [])];
  return { ...(only.length ? { only } : {}), ...(except.length ? { except } : {}) };
}

/**
 * The filter as conditions on `column`, its lists added to `params`. One type is an equality, as before several were
 * accepted, so its plan is the one it always had.
 */
export function typeConditions(column: string, filter: TypeFilter, params: unknown[]): string[] {
  const { only, except } = typesOf(filter);
  const conditions: string[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (only?.length === 1) conditions.push(`${column} = ${param(only[0])}`);
  else if (only) conditions.push(`${column} = ANY(${param(only)}::text[])`);
  if (except) conditions.push(`${column} <> ALL(${param(except)}::text[])`);
  return conditions;
}
