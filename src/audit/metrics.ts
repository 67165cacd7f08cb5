import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface AuditMetrics {
  registry: Registry;
  jobs: Counter<'status'>;
  jobsDeleted: Counter;
  running: Gauge;
  syncAudits: Counter<'outcome'>;
  pages: Counter<'outcome'>;
  pageSeconds: Histogram;
}

/** The audit service's own metrics; the kit adds the process's, HTTP requests and the database pool to the same registry. */
export function createMetrics(): AuditMetrics {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    jobs: new Counter({
      name: 'audit_jobs_finished_total',
      help: 'Audit jobs finished on this instance, by final status',
      labelNames: ['status'],
      registers,
    }),
    jobsDeleted: new Counter({
      name: 'audit_jobs_deleted_total',
      help: 'Finished audit jobs this instance deleted because they were older than AUDIT_RETENTION_DAYS',
      registers,
    }),
    running: new Gauge({
      name: 'audit_running',
      help: 'Audits (jobs and synchronous) running on this instance',
      registers,
    }),
    syncAudits: new Counter({
      name: 'audit_sync_requests_total',
      help: 'POST /audit requests by outcome (completed, failed, refused, busy, abandoned: the client hung up and the audit was stopped)',
      labelNames: ['outcome'],
      registers,
    }),
    pages: new Counter({
      name: 'audit_pages_total',
      help: 'Pages visited, by outcome (audited, failed)',
      labelNames: ['outcome'],
      registers,
    }),
    pageSeconds: new Histogram({
      name: 'audit_page_duration_seconds',
      help: "Time from navigation to axe's answer per audited page",
      buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 20, 40, 60],
      registers,
    }),
  };
}
