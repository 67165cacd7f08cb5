import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { CALLER, CALLER_SECURITY } from '../auth/access.ts';
import { ownJob } from '../jobs/owned.ts';
import { JobSummary, jobErrors, jobSummary } from '../jobs/schemas.ts';
import type { JobRecord } from '../jobs/store.ts';
import { FindingSchema } from '../result/schema.ts';
import { diffFindings } from './diff.ts';

const Params = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'The run looked at' }),
  baseId: Type.String({ minLength: 1, maxLength: 100, description: 'The run it is compared with' }),
});

const Findings = (description: string) => Type.Array(FindingSchema, { description });

export const Comparison = Type.Object({
  run: JobSummary,
  base: JobSummary,
  added: Findings('Failures of `id` that `baseId` did not have'),
  fixed: Findings('Failures of `baseId` that `id` no longer has'),
  remaining: Findings('Failures both runs have, as `id` reports them'),
});

/** A run with its result, or 409 naming why it has none. */
function completed(job: JobRecord, role: string) {
  if (job.status !== 'completed' || !job.result)
    throw new HttpError(
      409,
      codeForStatus(409),
      `the ${role} audit ${job.id} is ${job.status}; runs are compared once both have completed`,
    );
  return job.result;
}

/**
 * `GET /api/v1/audits/{id}/compare/{baseId}`: what is new in a run, what it fixed and what remains, against another
 * run of the same URL, failures matched as the CI gate matches them (src/audit/compare/failure-key.ts).
 */
export function registerCompareRoute(app: App, deps: { db: Database }): void {
  app.register(async (plugin) => {
    plugin.withTypeProvider<TypeBoxTypeProvider>().get(
      '/api/v1/audits/:id/compare/:baseId',
      {
        config: { access: CALLER },
        schema: {
          operationId: 'compareAudits',
          summary: 'Compare two completed runs of the same URL: failures new, fixed and remaining',
          description:
            "A failure is the same in both runs when its rule, its page (path and query, not the host) and its element selector are. `added`: in `id` only; `fixed`: in `baseId` only; `remaining`: in both, as `id` reports them. Both runs must be the caller's, completed, and of the same URL (400 otherwise).",
          tags: ['audits'],
          security: CALLER_SECURITY,
          params: Params,
          response: {
            200: Comparison,
            ...jobErrors,
          },
        },
      },
      async (request) => {
        const { id, baseId } = request.params;
        if (id === baseId) throw new HttpError(400, codeForStatus(400), 'a run is compared with another run');
        const [run, base] = await Promise.all([
          ownJob(deps.db, request.auditOwner, id),
          ownJob(deps.db, request.auditOwner, baseId),
        ]);
        if (run.url !== base.url)
          throw new HttpError(
            400,
            codeForStatus(400),
            `the two runs audited different URLs (${run.url} and ${base.url}): only runs of the same URL are compared`,
          );
        const diff = diffFindings(completed(base, 'base').findings, completed(run, 'compared').findings);
        return { run: jobSummary(run), base: jobSummary(base), ...diff };
      },
    );
  });
}
