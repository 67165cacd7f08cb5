import type { Queryable } from '../../kit/db.ts';
import type { DashboardRow } from '../dashboards/store.ts';
import { listDataSources } from '../datasources/store.ts';
import type { ProvisionedDashboardValue } from '../provision/format.ts';
import { getSavedQuery } from '../queries/store.ts';

type PortableWidget = ProvisionedDashboardValue['definition']['widgets'][number];
type PortableRef = NonNullable<ProvisionedDashboardValue['definition']['dataSources']>[number];

/**
 * A dashboard as a provisioning bundle's entry: data sources named by slug instead of this installation's ids, and a
 * widget on a saved query carrying the query's SQL and source (a saved query's id means nothing elsewhere). So an
 * export is imported into another tenant or installation, or dropped into DASHBOARD_PROVISIONING_DIR as it is.
 * A reference to a source the tenant no longer has stays an id: it names nothing here either.
 */
export async function portableDashboard(db: Queryable, row: DashboardRow): Promise<ProvisionedDashboardValue> {
  const slugOf = new Map((await listDataSources(db, row.tenant_id, {})).map((s) => [s.id, s.slug]));
  const d = row.definition;
  const refs: PortableRef[] = d.dataSources.map((r) => {
    const slug = slugOf.get(r.id);
    return slug === undefined ? r : { slug, ...(r.alias ? { alias: r.alias } : {}) };
  });
  const listed = new Set(refs.flatMap((r) => ('slug' in r ? [r.slug] : [])));
  const widgets: PortableWidget[] = [];
  for (const w of d.widgets) {
    const { dataSourceId, savedQueryId, ...rest } = w;
    let query = rest.query;
    let sourceId = dataSourceId;
    if (savedQueryId !== undefined) {
      const saved = await getSavedQuery(db, row.tenant_id, savedQueryId);
      if (!saved) {
        widgets.push(w);
        continue;
      }
      query = saved.query;
      sourceId = saved.data_source_id;
    }
    const slug = sourceId === undefined ? undefined : slugOf.get(sourceId);
    if (sourceId !== undefined && slug === undefined) {
      widgets.push({ ...rest, dataSourceId: sourceId, ...(query !== undefined ? { query } : {}) });
      continue;
    }
    // A saved query's source need not be among the definition's; listing it keeps the export's references whole.
    if (slug !== undefined && !listed.has(slug)) {
      refs.push({ slug });
      listed.add(slug);
    }
    widgets.push({
      ...rest,
      ...(query !== undefined ? { query } : {}),
      ...(slug !== undefined ? { dataSource: slug } : {}),
    });
  }
  return {
    slug: row.slug,
    title: row.title,
    ...(row.description !== null ? { description: row.description } : {}),
    definition: { ...d, dataSources: refs, widgets },
  };
}
