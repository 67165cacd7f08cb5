import { int, list, type ConfigOf } from '../kit/config.ts';
import { adminGuardVariables } from '../kit/auth/config.ts';
import { corsOriginsVariable } from '../kit/cors.ts';
import type { IdentityTokenLinks } from '../kit/links.ts';
import { commonVariables, readServiceConfig } from '../kit/service-config.ts';
import { apiKeyCacheVariable } from '../kit/api-keys/lookup.ts';
import { forwardingVariables } from './forwarding/config.ts';
import { retentionVariables } from './retention/config.ts';
import { logVariables } from './log/config.ts';

export const INGEST_DEFAULT_PORT = 4003;

export const ingestSpec = {
  ...commonVariables('ingest', INGEST_DEFAULT_PORT),
  ...forwardingVariables,
  ...retentionVariables,
  ...logVariables,
  ...adminGuardVariables('ingest', INGEST_DEFAULT_PORT),
  allowedOrigins: list('INGEST_ALLOWED_ORIGINS', {
    default: [],
    doc: 'Comma-separated browser origins (`https://app.example.com`) allowed to send events cross-origin; `*` allows any origin. Empty: no CORS.',
  }),
  corsOrigins: corsOriginsVariable(
    'ingest',
    "Only the admin API: `POST /v1/events` has its own, `INGEST_ALLOWED_ORIGINS`. With identity and the dashboard started beside it by `platform start`, the dashboard's origin (the console) is allowed without this.",
  ),
  keyCacheSeconds: apiKeyCacheVariable('ingest', 5),
  dbPoolSize: int('INGEST_DB_POOL_SIZE', {
    default: 10,
    min: 2,
    max: 200,
    doc: 'PostgreSQL connections of the ingest service.',
  }),
  commitConcurrency: int('INGEST_COMMIT_CONCURRENCY', {
    default: 3,
    min: 1,
    max: 32,
    doc: 'Group-commit transactions that may be in flight at once; requests arriving meanwhile wait and share the next commit.',
  }),
  commitMaxEvents: int('INGEST_COMMIT_MAX_EVENTS', {
    default: 5_000,
    min: 1_000,
    max: 1_000_000,
    doc: "Most events one group commit takes (whole requests are never split). Bounds the memory of one commit (~3 MB at 600 bytes per event) and keeps its inserted rows within PostgreSQL's default `work_mem` for the statement triggers.",
  }),
  maxPendingEvents: int('INGEST_MAX_PENDING_EVENTS', {
    default: 100_000,
    min: 1_000,
    max: 10_000_000,
    doc: "Accepted events waiting for a commit (with the log on: for the stream's acknowledgement) beyond which new requests are answered 503 with `Retry-After` (back-pressure when the database or the log is slow).",
  }),
  commitTimeoutSeconds: int('INGEST_COMMIT_TIMEOUT_SECONDS', {
    default: 15,
    min: 1,
    max: 600,
    doc: 'A request whose events are not committed (with the log on: not acknowledged by the stream) within this time is answered 503 (its events may still be stored; a retry is idempotent).',
  }),
  bodyTimeoutSeconds: int('INGEST_BODY_TIMEOUT_SECONDS', {
    default: 10,
    min: 1,
    max: 300,
    doc: 'Longest pause while a request body of `POST /v1/events` is arriving; a body that stops for longer is answered 408 and its connection closed.',
  }),
  erasureBatchEvents: int('INGEST_ERASURE_BATCH_EVENTS', {
    default: 1_000,
    min: 1,
    max: 100_000,
    doc: 'Events an erasure deletes per transaction (with their hourly counts, outbox entries and dead letters): a user with millions of events never holds one long transaction, and a restart goes on from the last batch.',
  }),
  retryAfterSeconds: int('INGEST_RETRY_AFTER_SECONDS', {
    default: 5,
    min: 1,
    max: 3600,
    doc: 'Value of `Retry-After` on 503 answers.',
  }),
};

/** `links` is not read from the environment: `platform start` sets it when it runs identity beside ingest (src/platform/links.ts). */
export type IngestConfig = ConfigOf<typeof ingestSpec> & { links?: IdentityTokenLinks };

export function loadIngestConfig(env: NodeJS.ProcessEnv): IngestConfig {
  return readServiceConfig(ingestSpec, env);
}
