import { int } from '../../kit/config.ts';

/** Retention and the daily partitions of `events`, spread into the ingest service's spec by config.ts. */
export const retentionVariables = {
  retentionDays: int('INGEST_RETENTION_DAYS', {
    default: 0,
    min: 0,
    max: 36_500,
    doc: "Days an event is kept after its day (of `event.timestamp`, UTC) for a project without a retention of its own (`PUT /api/v1/projects/{id}/retention`); `0` keeps events for ever. Old events go by whole daily partitions (docs/ingest.md, Retention), and a retried event is recognised for as long as its day's partition is kept.",
  }),
  partitionDaysAhead: int('INGEST_PARTITION_DAYS_AHEAD', {
    default: 3,
    min: 1,
    max: 60,
    doc: 'Daily partitions of `events` made ahead of today (UTC), so the maintenance may stop for that long before new events go to the default partition.',
  }),
  partitionDaysBehind: int('INGEST_PARTITION_DAYS_BEHIND', {
    default: 7,
    min: 0,
    max: 400,
    doc: 'Daily partitions made for past days, for late events (a device that was offline); an event older than that, and not yet expired, is stored in the default partition.',
  }),
  partitionMaintenanceMinutes: int('INGEST_PARTITION_MAINTENANCE_MINUTES', {
    default: 60,
    min: 0,
    max: 1_440,
    doc: 'How often this instance makes the partitions ahead and drops expired ones (also at start); instances take turns through an advisory lock. `0`: never (run `platform ingest partitions maintain` from cron instead).',
  }),
};
