/**
 * The audit API's shapes as TypeScript types, derived from the routes' TypeBox schemas, for the console's Audits
 * section (web/dashboard imports this file type-only, so the browser bundle gets none of the server's code).
 */
import type { Static } from 'typebox';
import type { Comparison } from './compare/route.ts';
import type { JobSummary } from './jobs/schemas.ts';
import type { ApiKey, CreatedApiKey } from './keys/routes.ts';

export type {
  AuditResult,
  Finding,
  Impact,
  AuditStats,
  NeedsReviewItem,
  PageResult,
  RuleOutcome,
} from './result/types.ts';
export type ApiRun = Static<typeof JobSummary>;
export type ApiComparison = Static<typeof Comparison>;
export type ApiAuditKey = Static<typeof ApiKey>;
export type ApiCreatedAuditKey = Static<typeof CreatedApiKey>;
