import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardRow } from '../dashboards/store.ts';
import { notFound } from '../errors.ts';
import { dataSourceOf } from '../lookup.ts';
import { clientGoneSignal } from './client-gone.ts';
import { runAndAudit, type RunContext } from './run.ts';
import { runKey } from './shared-results.ts';
import { valuesUsedBy } from './widget.ts';

/** The most choices a query parameter offers (a select box of more is not a choice). */
export const MAX_OPTIONS = 1000;

/**
 * The choices of a dashboard's query parameter (Grafana's query variables, Metabase's field filter values): its SQL,
 * as stored, run with the values of the parameters before it that the SQL names (a chain: countries, then the cities
 * of the country chosen). The first column of each row, as text, without repeats, in the rows' order. Identical
 * requests at once share one run, as widgets do.
 */
export async function parameterOptions(
  ctx: RunContext,
  request: FastifyRequest,
  reply: FastifyReply,
  dashboard: DashboardRow,
  name: string,
  values: Record<string, unknown>,
): Promise<{ options: string[]; truncated: boolean }> {
  const parameter = dashboard.definition.parameters?.find((p) => p.name === name);
  if (parameter?.type !== 'query' || !parameter.query || !parameter.dataSourceId) throw notFound('query parameter');
  const source = await dataSourceOf(ctx.db, dashboard.tenant_id, parameter.dataSourceId);
  const parameters = valuesUsedBy(parameter.query, source.type, values);
  const key = runKey({
    sourceId: source.id,
    sourceVersion: source.version,
    query: parameter.query,
    parameters,
    maxRows: MAX_OPTIONS,
    role: `${currentUser(request).role}:parameter`,
  });
  const origin = { kind: 'parameter' as const, dashboardId: dashboard.id, parameter: name };
  const { result } = await ctx.sql.shared.run(key, { ttlMs: 0, signal: clientGoneSignal(reply) }, (signal) =>
    runAndAudit(ctx, request, source, { query: parameter.query!, parameters, maxRows: MAX_OPTIONS, signal }, origin),
  );
  const first = result.columns[0]?.name;
  const seen = new Set<string>();
  for (const row of result.rows) {
    const v = first === undefined ? undefined : row[first];
    if (v === null || v === undefined) continue;
    seen.add(typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  return { options: [...seen], truncated: result.truncated };
}
