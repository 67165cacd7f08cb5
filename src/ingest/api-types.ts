/**
 * The admin API's shapes as TypeScript types, derived from the routes' TypeBox schemas, for the console
 * (web/dashboard imports this file type-only, so the browser bundle gets none of the server's code).
 */
import type { Static } from 'typebox';
import type { ApiKey, CreatedApiKey, Project, ProjectInternalUsers, ProjectOrigins } from './admin/schemas.ts';
import type {
  CreatedDestination,
  DeadLetter,
  DeadLetterDetail,
  Destination,
  Figures,
  TestResult,
} from './forwarding/schemas.ts';
import type { Erasure } from './erasure/schemas.ts';
import type { ProjectPlan, Violations } from './tracking-plan/schemas.ts';

export type ApiProject = Static<typeof Project>;
export type ApiProjectOrigins = Static<typeof ProjectOrigins>;
export type ApiProjectInternalUsers = Static<typeof ProjectInternalUsers>;
export type ApiIngestKey = Static<typeof ApiKey>;
export type ApiCreatedIngestKey = Static<typeof CreatedApiKey>;
export type ApiDestination = Static<typeof Destination>;
export type ApiCreatedDestination = Static<typeof CreatedDestination>;
export type ApiDeadLetter = Static<typeof DeadLetter>;
export type ApiDeadLetterDetail = Static<typeof DeadLetterDetail>;
export type ApiDeliveryFigures = Static<typeof Figures>;
export type ApiTestSend = Static<typeof TestResult>;
export type ApiErasure = Static<typeof Erasure>;
export type ApiTrackingPlan = Static<typeof ProjectPlan>;
export type ApiTrackingPlanViolations = Static<typeof Violations>;
export type { DestinationKind } from './forwarding/vendors/kinds.ts';
