import { bool, ConfigError, int, list, oneOf, optionalStr, optionalUrl, str, type ConfigOf } from '../kit/config.ts';
import { commonVariables, readServiceConfig } from '../kit/service-config.ts';
import { apiKeyCacheVariable } from '../kit/api-keys/lookup.ts';
import { publicUrlVariable } from '../kit/auth/config.ts';
import { corsOriginsVariable } from '../kit/cors.ts';
import type { IdentityTokenLinks } from '../kit/links.ts';
import { isAllowEntry } from '../kit/outbound/address-policy.ts';
import { llmVariables } from './llm/config.ts';
import { openAcrVariables } from './openacr/config.ts';

export const AUDIT_DEFAULT_PORT = 4002;

export const auditSpec = {
  ...commonVariables('audit', AUDIT_DEFAULT_PORT),
  ...openAcrVariables,
  ...llmVariables,
  dbPoolSize: int('AUDIT_DB_POOL_SIZE', {
    default: 5,
    min: 2,
    max: 100,
    doc: 'PostgreSQL connections of the audit service.',
  }),
  concurrency: int('AUDIT_CONCURRENCY', {
    default: 2,
    min: 0,
    max: 32,
    doc: 'Audit jobs one instance runs at a time (each a browser context in the shared Chromium). `0` runs no worker: the instance only answers the API, other instances do the work.',
  }),
  pageConcurrency: int('AUDIT_PAGE_CONCURRENCY', {
    default: 3,
    min: 1,
    max: 32,
    doc: "Pages of one audit (a crawl) loaded and checked at a time, each a page in the audit's browser context. A page spends much of its time waiting for the network to go quiet, so more pages than cores keeps the cores busy; 3 measured as fast as 4 on two cores with less memory (bench/README.md).",
  }),
  maxElementsPerRule: int('AUDIT_MAX_ELEMENTS_PER_RULE', {
    default: 100,
    min: 1,
    max: 100_000,
    doc: "Failing elements (and, apart, elements needing review) listed at most per axe rule and page; the rest are counted in `stats` and the result's `omitted`, not described. Describing an element is about half of axe's time on a page with thousands of failures.",
  }),
  maxSyncAudits: int('AUDIT_MAX_SYNC_AUDITS', {
    default: 2,
    min: 1,
    max: 32,
    doc: 'Synchronous audits (`POST /audit`) one instance runs at a time; beyond it the request is answered 429 with `Retry-After`.',
  }),
  keyCacheSeconds: apiKeyCacheVariable('audit', 0),
  maxQueuedPerKey: int('AUDIT_MAX_QUEUED_PER_KEY', {
    default: 20,
    min: 1,
    max: 100_000,
    doc: 'Pending and running jobs one credential (API key or identity client/user) may have; more are answered 429.',
  }),
  leaseSeconds: int('AUDIT_LEASE_SECONDS', {
    default: 60,
    min: 2,
    max: 3600,
    doc: 'How long a worker holds a running job without renewing it (it renews every second); a job whose worker died goes back to the queue when its lease ends.',
  }),
  maxAttempts: int('AUDIT_MAX_ATTEMPTS', {
    default: 3,
    min: 1,
    max: 20,
    doc: 'Times a job is started before it ends `failed` with the last reason.',
  }),
  pollMs: int('AUDIT_POLL_MS', {
    default: 1_000,
    min: 50,
    max: 60_000,
    doc: 'How often an idle worker looks for jobs queued by other instances (jobs created on the same instance start at once).',
  }),
  retentionDays: int('AUDIT_RETENTION_DAYS', {
    default: 90,
    min: 0,
    max: 36_500,
    doc: 'Days a finished job (completed, failed or cancelled) and its result are kept after it finished; each instance deletes older ones at start and every hour. Pending and running jobs are never deleted. `0` keeps finished jobs forever.',
  }),
  pageTimeoutSeconds: int('AUDIT_PAGE_TIMEOUT_SECONDS', {
    default: 60,
    min: 5,
    max: 600,
    doc: "Longest one page may take from navigation to axe's answer; a page over it is recorded failed and the audit goes on.",
  }),
  deepDefault: bool('AUDIT_DEEP_DEFAULT', {
    default: false,
    doc: 'Whether an audit that does not say (`deep` in the request) runs the deep checks that need a real browser (keyboard walk, focus visibility, reflow, text spacing, …) after axe. They cost several seconds a page; see bench/README.md.',
  }),
  deepBudgetSeconds: int('AUDIT_DEEP_BUDGET_SECONDS', {
    default: 60,
    min: 5,
    max: 600,
    doc: 'Longest the deep checks may take on one page, on top of `AUDIT_PAGE_TIMEOUT_SECONDS`; a check that runs out of it reports what it could not check for review. No check gets more than 40 % of it.',
  }),
  networkIdleMs: int('AUDIT_NETWORK_IDLE_MS', {
    default: 5_000,
    min: 0,
    max: 60_000,
    doc: 'After `load`, how long to wait at most for the network to go idle (no request for 500 ms) before auditing.',
  }),
  settleMs: int('AUDIT_SETTLE_MS', {
    default: 300,
    min: 0,
    max: 30_000,
    doc: 'Pause after the network is idle (or its wait ran out), for scripts that render after their last request.',
  }),
  maxDepth: int('AUDIT_MAX_DEPTH', {
    default: 5,
    min: 0,
    max: 100,
    doc: 'Ceiling of `crawl.depth`; a larger request is answered 400.',
  }),
  maxPages: int('AUDIT_MAX_PAGES', {
    default: 100,
    min: 1,
    max: 10_000,
    doc: 'Ceiling of `crawl.maxPages`; a larger request is answered 400.',
  }),
  allowHosts: list('AUDIT_ALLOW_HOSTS', {
    default: [],
    doc: 'Host names and address ranges (CIDR such as `10.1.0.0/16`, or single addresses) audits may reach although they are loopback, private, link-local or otherwise internal. Empty: only public addresses.',
  }),
  smtpUrl: optionalUrl('AUDIT_SMTP_URL', ['smtp:', 'smtps:'], {
    secret: true,
    doc: "SMTP server for a site's notices by mail (`smtp://user:pass@host:587`, `smtps://…`); unset, mail notices are not sent (their deliveries end `failed` saying so) and webhooks still are.",
  }),
  mailFrom: str('AUDIT_MAIL_FROM', { default: 'audit@localhost', doc: 'Sender address of notices by mail.' }),
  webhookAllowHosts: list('AUDIT_WEBHOOK_ALLOW_HOSTS', {
    default: [],
    doc: "Host names and address ranges (as `AUDIT_ALLOW_HOSTS`) a site's notification webhook may reach although they are internal. Empty: webhooks go to public addresses only.",
  }),
  notifyAttempts: int('AUDIT_NOTIFY_ATTEMPTS', {
    default: 8,
    min: 1,
    max: 30,
    doc: 'Times a notice (mail or webhook) is tried, with a growing pause between tries (2 s doubling, at most 1 hour), before its delivery ends `failed`.',
  }),
  identityUrl: optionalUrl('AUDIT_IDENTITY_URL', ['http:', 'https:'], {
    doc: "Base URL (issuer) of the platform's identity service, whose access tokens are accepted besides API keys (checked by token introspection, answers kept 5 s). Needs `AUDIT_IDENTITY_CLIENT_ID` and `AUDIT_IDENTITY_CLIENT_SECRET`. Unset: only API keys, unless `platform start` runs identity beside audit (then its tokens are checked in identity's own store).",
  }),
  publicUrl: publicUrlVariable('audit', AUDIT_DEFAULT_PORT),
  corsOrigins: corsOriginsVariable(
    'audit',
    "With identity and the dashboard started beside it by `platform start`, the dashboard's origin (the console) is allowed without this.",
  ),
  identityClientId: optionalStr('AUDIT_IDENTITY_CLIENT_ID', {
    doc: "client_id of the audit service's own app at identity, used to introspect tokens and to ask whether the maker of a console key still holds the audits right: a confidential app registered as a resource server (`platform identity apps create --type service --resource-server`).",
  }),
  identityClientSecret: optionalStr('AUDIT_IDENTITY_CLIENT_SECRET', {
    secret: true,
    doc: 'Client secret of that app.',
  }),
  requiredScope: str('AUDIT_REQUIRED_SCOPE', {
    default: 'audits',
    doc: "Scope an identity access token must carry to use the audit API; an active token without it is answered 403. The console's Audits right: `platform start` makes it known to identity, otherwise add it with `IDENTITY_EXTRA_SCOPES`.",
  }),
  defaultVersion: oneOf('AUDIT_DEFAULT_WCAG_VERSION', ['2.0', '2.1', '2.2'] as const, {
    default: '2.2',
    doc: 'WCAG version of audits that do not name one.',
  }),
  defaultLevel: oneOf('AUDIT_DEFAULT_WCAG_LEVEL', ['A', 'AA', 'AAA'] as const, {
    default: 'AA',
    doc: 'Conformance level of audits that do not name one.',
  }),
};

/** `links` is not read from the environment: `platform start` sets it when it runs identity beside audit (src/platform/links.ts). */
export type AuditServiceConfig = ConfigOf<typeof auditSpec> & { links?: IdentityTokenLinks };

export function loadAuditConfig(env: NodeJS.ProcessEnv): AuditServiceConfig {
  const config = readServiceConfig(auditSpec, env);
  for (const [name, entries] of [
    ['AUDIT_ALLOW_HOSTS', config.allowHosts],
    ['AUDIT_WEBHOOK_ALLOW_HOSTS', config.webhookAllowHosts],
  ] as const) {
    for (const entry of entries) {
      if (!isAllowEntry(entry))
        throw new ConfigError(
          name,
          `${name} is malformed: "${entry}" is neither a host name, an address nor a CIDR range such as 10.1.0.0/16`,
        );
    }
  }
  if (config.identityUrl) {
    for (const [name, value] of [
      ['AUDIT_IDENTITY_CLIENT_ID', config.identityClientId],
      ['AUDIT_IDENTITY_CLIENT_SECRET', config.identityClientSecret],
    ] as const) {
      if (!value) throw new ConfigError(name, `${name} is required when AUDIT_IDENTITY_URL is set`);
    }
  }
  return config;
}
