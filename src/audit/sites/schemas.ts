import { Type, type Static } from 'typebox';
import { errorResponses } from '../../kit/errors.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { JobStatus } from '../jobs/schemas.ts';
import { AuditUrl, JobConfig } from '../request/schema.ts';
import { ScheduleOut } from '../schedules/schemas.ts';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const SiteName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[^\\x00-\\x1f\\x7f]*\\S[^\\x00-\\x1f\\x7f]*$',
  description: 'What people call the site (1 to 200 characters, not blank, no control characters)',
});

export const SiteBody = Type.Object(
  {
    name: SiteName,
    url: AuditUrl,
    config: Type.Optional({
      ...JobConfig,
      description:
        "The audit's settings, as `config` of POST /api/v1/audits (level, version, crawl, llm, session, ignore); resolved against the service's defaults and ceilings each time a run is queued",
    }),
  },
  { additionalProperties: false },
);

/** A site's settings as kept: `config` of an audit request, level and version in their one spelling. */
export type SiteConfig = Static<typeof JobConfig>;

export const SiteParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** A run of the site as its list and page show it: no result, its score once completed and its pages done. */
export const SiteRun = Type.Object({
  id: Type.String(),
  status: JobStatus,
  createdAt: Timestamp,
  startedAt: nullable(Timestamp),
  finishedAt: nullable(Timestamp),
  score: nullable(Type.Number({ description: 'The completed run’s score, 0 to 100' })),
  pagesDone: Type.Integer({ description: 'Pages audited or failed so far (0 before the run started)' }),
  pagesTotal: Type.Integer({
    description:
      'Pages the run audits at most: crawl.maxPages (1 without crawling); once completed, the pages it audited',
  }),
  error: nullable(Type.String()),
});

export const SiteOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  config: JobConfig,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  latestRun: nullable({ ...SiteRun, description: 'The newest run of the site, whatever its status' }),
  lastCompleted: nullable({ ...SiteRun, description: 'The newest completed run: the site’s last score' }),
  schedule: nullable(ScheduleOut),
});

export const SiteList = Type.Object({ items: Type.Array(SiteOut) });

export const siteErrors = errorResponses(400, 401, 403, 404, 409, 429, 503);

/** The site as the API answers it: the console's type too (web/dashboard/src/audits/sites/api.ts). */
export type ApiSite = Static<typeof SiteOut>;
export type ApiSiteBody = Static<typeof SiteBody>;
