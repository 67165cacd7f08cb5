import type { Queryable } from '../../kit/db.ts';
import { roleAtLeast } from '../auth/roles.ts';
import type { AuthUser } from '../auth/user.ts';
import type { DefinitionValue } from '../dashboards/definition.ts';
import { forbidden } from '../errors.ts';
import { listDataSources, type DataSourceRow } from '../datasources/store.ts';

const PLURAL = { editor: 'editors', admin: 'admins', owner: 'owners' } as const;

/**
 * The one rule of who may write SQL on a data source: its `sqlRole` or above (editor at the least, so never a viewer).
 * What it governs is authorship: ad-hoc SQL (run.ts `runAdHoc`, the only way routes run it), a saved query's
 * text or source, a widget's inline SQL on create, update, restore and import (`checkWidgetSql` below). Running SQL
 * someone allowed already stored is not authorship.
 */
export function checkSqlAuthor(
  user: Pick<AuthUser, 'role'>,
  source: Pick<DataSourceRow, 'name' | 'sql_role'>,
  field: string,
): void {
  if (roleAtLeast(user.role, source.sql_role)) return;
  const who = source.sql_role === 'owner' ? 'owners' : `${PLURAL[source.sql_role]} and owners`;
  throw forbidden(
    `${field}: only ${who} write SQL on the data source "${source.name}"; use one of its saved queries instead, or ask an admin`,
  );
}

/**
 * A definition's widgets whose inline SQL is new or changed against `before` (the current version; none for a new
 * dashboard) must each be by someone the widget's source allows. Unchanged widgets pass: an editor may retitle a
 * dashboard an admin filled with SQL on a restricted source.
 */
export async function checkWidgetSql(
  db: Queryable,
  user: Pick<AuthUser, 'role' | 'tenantId'>,
  definition: DefinitionValue,
  before?: DefinitionValue,
): Promise<void> {
  const previous = new Map((before?.widgets ?? []).map((w) => [w.id, w]));
  const changed = definition.widgets
    .map((w, i) => ({ w, i }))
    .filter(({ w }) => w.query !== undefined && w.dataSourceId !== undefined)
    .filter(({ w }) => {
      const p = previous.get(w.id);
      return !p || p.query !== w.query || p.dataSourceId !== w.dataSourceId;
    });
  if (changed.length === 0) return;
  const sources = new Map((await listDataSources(db, user.tenantId, {})).map((s) => [s.id, s]));
  for (const { w, i } of changed) {
    const source = sources.get(w.dataSourceId!);
    if (source) checkSqlAuthor(user, source, `definition.widgets[${i}].query`);
  }
}
