import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { HttpError } from './errors.ts';

/**
 * The platform's lists: `GET …?limit=N&cursor=C` answers `{items, next}`, where `next` is the opaque
 * cursor of the following page or null on the last one. A cursor is the sort key of the last row
 * given (base64url JSON), so pages stay stable while rows are added.
 */
export function pageQuery(options: { defaultLimit?: number; maxLimit?: number } = {}) {
  const max = options.maxLimit ?? 500;
  return {
    limit: Type.Integer({
      minimum: 1,
      maximum: max,
      default: Math.min(options.defaultLimit ?? 100, max),
      description: 'Most items in this page',
    }),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: '`next` of the previous page' })),
  };
}

/** The answer of a list: `{items: [...], next: string | null}`. */
export function pageOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    next: Type.Union([Type.String(), Type.Null()], { description: 'Cursor of the next page; null on the last page' }),
  });
}

export function encodeCursor(position: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position a cursor holds, checked against its expected shape; a cursor this API did not give is a 400. */
export function decodeCursor<T extends TSchema>(cursor: string | undefined, shape: T): Static<T> | undefined {
  if (cursor === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!Value.Check(shape, value))
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      'cursor is not one this list gave: pass `next` of the previous page unchanged',
    );
  return value as Static<T>;
}

/**
 * One page from rows read with `LIMIT limit + 1`: the extra row only tells that another page exists,
 * so the last page never points at an empty one.
 */
export function toPage<R, O = R>(
  rows: R[],
  limit: number,
  positionOf: (row: R) => readonly (string | number)[],
  out: (row: R) => O = (r) => r as unknown as O,
): { items: O[]; next: string | null } {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return { items: shown.map(out), next: more ? encodeCursor(positionOf(shown[shown.length - 1]!)) : null };
}

/** What a store reads for one page in creation order: `after` is the `position` of the previous page's last row. */
export interface PageRequest {
  limit: number;
  after?: readonly [string, string] | undefined;
}
/** The exact creation time (text, full precision) and id of a row: where the next page starts. */
export type Positioned<T> = T & { position: [string, string] };

/** Rows read with their creation time as `sort_at` (`created_at::text`), each with its position instead. */
export function positioned<T extends { id: string }>(rows: (T & { sort_at: string })[]): Positioned<T>[] {
  return rows.map(({ sort_at, ...row }) => ({ ...(row as unknown as T), position: [sort_at, row.id] }));
}
