import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../kit/db.ts';
import type { AuditResult } from '../result/types.ts';
import { regression } from './decide.ts';
import { regressionPayload } from './message.ts';
import { getSettings, insertDeliveries, type Channel } from './store.ts';

interface FinishedRun {
  id: string;
  site_id: string;
  seq: string;
  finished_at: string | null;
  name: string;
  url: string;
}

/**
 * Decides the notices of one finished run of a site not yet decided, if any: locked with SKIP LOCKED, its notices
 * stored and the run marked decided in one transaction (the caller's), so each run is decided once by one instance,
 * whatever crashes. Answers whether there was such a run.
 */
export async function decideOne(tx: Queryable, log: FastifyBaseLogger): Promise<boolean> {
  const { rows } = await tx.query<FinishedRun>(
    `SELECT j.id, j.site_id, j.seq, to_char(j.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS finished_at,
       s.name, s.url
     FROM jobs j JOIN sites s ON s.id = j.site_id
     WHERE j.site_id IS NOT NULL AND j.notified_at IS NULL AND j.status IN ('completed', 'failed')
     ORDER BY j.seq FOR UPDATE OF j SKIP LOCKED LIMIT 1`,
  );
  const run = rows[0];
  if (!run) return false;
  await tx.query('UPDATE jobs SET notified_at = now() WHERE id = $1', [run.id]);
  const settings = await getSettings(tx, run.site_id);
  const destinations: { channel: Channel; target: string }[] = [
    ...settings.emails.map((target) => ({ channel: 'email' as const, target })),
    ...(settings.webhookUrl ? [{ channel: 'webhook' as const, target: settings.webhookUrl }] : []),
  ];
  if (destinations.length === 0) return true;
  const { rows: results } = await tx.query<{ id: string; result: AuditResult | null }>(
    `SELECT id, result FROM jobs WHERE site_id = $1 AND status = 'completed' AND seq <= $2 ORDER BY seq DESC LIMIT 2`,
    [run.site_id, run.seq],
  );
  // A failed run, or the site's first completed one, has nothing to compare.
  const [current, previous] = results;
  if (current?.id !== run.id || !current.result || !previous?.result) return true;
  let payload: ReturnType<typeof regressionPayload>;
  try {
    const found = regression(current.result, previous.result, settings);
    if (!found) return true;
    payload = regressionPayload(
      { id: run.site_id, name: run.name, url: run.url },
      { id: run.id, finishedAt: run.finished_at },
      previous.id,
      found,
    );
  } catch (err) {
    // A result this code cannot read (stored by an older version) must not hold every later run's notices back.
    log.error({ err, job: run.id }, 'deciding the notices of a run failed; it notifies nothing');
    return true;
  }
  await insertDeliveries(tx, run.site_id, run.id, payload, destinations);
  return true;
}
