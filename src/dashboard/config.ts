import {
  bool,
  int,
  list,
  optionalStr,
  optionalUrl,
  str,
  ConfigError,
  type ConfigOf,
  type Variable,
} from '../kit/config.ts';
import { commonVariables, readServiceConfig } from '../kit/service-config.ts';
import { oidcProvidersVariable } from '../kit/upstream-login/config.ts';
import { DEFAULT_DENIED_NETWORKS, networkPolicy } from './sql/network.ts';
import { isAllowEntry } from '../kit/outbound/address-policy.ts';
import type { DashboardLinks } from './platform-link.ts';

export const DASHBOARD_DEFAULT_PORT = 4001;

export type PlanLimits = { free: number; pro: number; enterprise: number };
export const DEFAULT_PLAN_LIMITS: PlanLimits = { free: 60, pro: 300, enterprise: 1000 };

function planLimits(name: string, options: { doc: string }): Variable<PlanLimits> {
  return {
    name,
    expects: 'plan=requests pairs such as free=60,pro=300,enterprise=1000 (positive integers)',
    doc: options.doc,
    secret: false,
    fallback: () => ({ ...DEFAULT_PLAN_LIMITS }),
    parse: (raw) => {
      const out = { ...DEFAULT_PLAN_LIMITS };
      for (const part of raw
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const m = /^(free|pro|enterprise)=(\d{1,9})$/.exec(part);
        if (!m || Number(m[2]) < 1) return undefined;
        out[m[1] as keyof PlanLimits] = Number(m[2]);
      }
      return out;
    },
  };
}

// The built-in providers and the other routes under /api/v1/auth/ cannot be an operator's issuer id.
const RESERVED_PROVIDER_IDS = ['github', 'google', 'me', 'providers', 'refresh', 'logout'];

export const dashboardSpec = {
  ...commonVariables('dashboard', DASHBOARD_DEFAULT_PORT),
  publicUrl: optionalUrl('DASHBOARD_PUBLIC_URL', ['http:', 'https:'], {
    doc: 'Public base URL of the dashboard service, used to build the login callback URLs (`<url>/api/v1/auth/<provider>/callback`). Unset: `http://localhost:<DASHBOARD_PORT>`.',
  }),
  jwtSecret: optionalStr('DASHBOARD_JWT_SECRET', {
    secret: true,
    doc: 'Secret that signs access tokens (HS256): at least 32 bytes; the service refuses to start with a shorter one. Required when NODE_ENV=production; otherwise derived from the platform secret key.',
  }),
  accessTokenTtl: int('DASHBOARD_ACCESS_TOKEN_TTL', {
    default: 900,
    min: 60,
    max: 86_400,
    doc: 'Lifetime of an access token in seconds (15 minutes by default); also the `expiresIn` of a token pair.',
  }),
  refreshTokenTtl: int('DASHBOARD_REFRESH_TOKEN_TTL', {
    default: 604_800,
    min: 300,
    max: 7_776_000,
    doc: 'Lifetime of a refresh token in seconds (7 days by default).',
  }),
  authDisabled: bool('DASHBOARD_AUTH_DISABLED', {
    default: false,
    doc: 'Local development only: every request acts as the owner of a `dev` tenant without a token. Refused with NODE_ENV=production or a HOST other than a loopback address; logged loudly at start.',
  }),
  corsOrigins: list('DASHBOARD_CORS_ORIGINS', {
    default: [],
    doc: 'Comma-separated origins allowed to call the API from a browser (`https://dash.example.com`); `*` allows any. Empty: no cross-origin access.',
  }),
  corsMethods: list('DASHBOARD_CORS_METHODS', {
    default: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    doc: 'Comma-separated methods allowed cross-origin.',
  }),
  corsHeaders: list('DASHBOARD_CORS_HEADERS', {
    default: ['Authorization', 'Content-Type', 'If-Match'],
    doc: 'Comma-separated request headers allowed cross-origin.',
  }),
  redirectAllowList: list('DASHBOARD_REDIRECT_ALLOWLIST', {
    default: [],
    doc: 'Comma-separated origins (`https://dash.example.com`) or URL prefixes that the `redirect` of a login may point to. A login without `redirect` answers the token pair as JSON.',
  }),
  githubClientId: optionalStr('DASHBOARD_GITHUB_CLIENT_ID', {
    doc: 'OAuth app client id for signing in with GitHub. Unset: `/api/v1/auth/github` answers 404.',
  }),
  githubClientSecret: optionalStr('DASHBOARD_GITHUB_CLIENT_SECRET', {
    secret: true,
    doc: 'OAuth app client secret for GitHub.',
  }),
  githubUrl: str('DASHBOARD_GITHUB_URL', {
    default: 'https://github.com',
    doc: 'Web URL of GitHub (authorize and token endpoints); a GitHub Enterprise Server URL works too.',
  }),
  githubApiUrl: str('DASHBOARD_GITHUB_API_URL', {
    default: 'https://api.github.com',
    doc: 'REST API URL of GitHub (`/user`, `/user/emails`); `https://HOST/api/v3` for GitHub Enterprise Server.',
  }),
  googleClientId: optionalStr('DASHBOARD_GOOGLE_CLIENT_ID', {
    doc: 'OAuth client id for signing in with Google. Unset: `/api/v1/auth/google` answers 404.',
  }),
  googleClientSecret: optionalStr('DASHBOARD_GOOGLE_CLIENT_SECRET', {
    secret: true,
    doc: 'OAuth client secret for Google.',
  }),
  googleIssuer: str('DASHBOARD_GOOGLE_ISSUER', {
    default: 'https://accounts.google.com',
    doc: 'OpenID issuer of Google (its discovery document names the endpoints).',
  }),
  oidcProviders: oidcProvidersVariable(
    'DASHBOARD_OIDC_PROVIDERS',
    RESERVED_PROVIDER_IDS,
    'Further OpenID Connect issuers to sign in with, as a JSON array of `{"id","issuer","clientId","clientSecret","name"}`; each is reached at `/api/v1/auth/<id>`. The platform\'s identity service is one: `[{"id":"platform","issuer":"http://localhost:4000","clientId":"…","clientSecret":"…"}]`.',
  ),
  bootstrapOwner: optionalStr('DASHBOARD_BOOTSTRAP_OWNER', {
    doc: 'Email of the first owner: at start, when no tenant exists yet, a tenant (`DASHBOARD_BOOTSTRAP_TENANT`) is created with this person as its owner, who then signs in with a provider that verifies this email.',
  }),
  bootstrapOwnerName: optionalStr('DASHBOARD_BOOTSTRAP_OWNER_NAME', {
    doc: "Name of the `DASHBOARD_BOOTSTRAP_OWNER` user; unset, the email until the first sign-in gives the provider's name.",
  }),
  bootstrapTenant: str('DASHBOARD_BOOTSTRAP_TENANT', {
    default: 'default',
    doc: 'Slug of the tenant created for `DASHBOARD_BOOTSTRAP_OWNER`.',
  }),
  dataSourceEnvPrefix: str('DASHBOARD_DATASOURCE_ENV_PREFIX', {
    default: 'DASHBOARD_DS_',
    doc: "A data source's `connectionUrlEnv` must name an environment variable starting with this prefix, so a data source cannot be pointed at the platform's own secrets (`DASHBOARD_JWT_SECRET`, `DATABASE_URL`).",
  }),
  dataSourceDeniedNetworks: list('DASHBOARD_DATASOURCE_DENIED_NETWORKS', {
    default: DEFAULT_DENIED_NETWORKS,
    doc: 'Comma-separated networks (CIDR) data sources may never connect to. Default: link-local and cloud metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254, 100.100.100.200), 0.0.0.0/8, multicast and reserved ranges. Private ranges and loopback are allowed, since databases normally live there.',
  }),
  dataSourceAllowedNetworks: list('DASHBOARD_DATASOURCE_ALLOWED_NETWORKS', {
    default: [],
    doc: 'Comma-separated networks (CIDR) data sources may connect to; when set, every other address is refused (`10.20.0.0/16,192.168.5.0/24`). Empty: any address not denied.',
  }),
  rateLimits: planLimits('DASHBOARD_RATE_LIMITS', {
    doc: "Requests per minute per tenant by plan, as `free=60,pro=300,enterprise=1000` (Document 1's values, the default); plans not named keep their default. Callers not yet signed in are limited per address at the free value.",
  }),
  redisPrefix: str('DASHBOARD_REDIS_PREFIX', {
    default: 'dashboard:',
    doc: "Prefix of the dashboard service's keys in Redis (rate limit counts): deployments sharing one Redis need different prefixes.",
  }),
  provisioningDir: optionalStr('DASHBOARD_PROVISIONING_DIR', {
    doc: "Folder of data sources and dashboards as YAML or JSON files, applied at every start (and by `platform dashboard provision`), as Grafana's provisioning does. A bad file stops the start with one line naming the file and the field. Unset: nothing is read.",
  }),
  platformData: bool('DASHBOARD_PLATFORM_DATA', {
    default: true,
    doc: "On the first run (the first owner created), add read-only data sources over the ingest and audit services' tables and starter dashboards, when those services use a PostgreSQL server (`DATABASE_URL`). `false`: only `platform dashboard provision` adds them.",
  }),
  ingestDatabaseUrl: optionalUrl('INGEST_DATABASE_URL', ['postgres:', 'postgresql:'], {
    secret: true,
    doc: "Read by the dashboard too: where the ingest service's tables are, for the platform data source.",
  }),
  auditDatabaseUrl: optionalUrl('AUDIT_DATABASE_URL', ['postgres:', 'postgresql:'], {
    secret: true,
    doc: "Read by the dashboard too: where the audit service's tables are, for the platform data source.",
  }),
  platformIngestUrl: optionalUrl('DASHBOARD_PLATFORM_INGEST_URL', ['postgres:', 'postgresql:'], {
    secret: true,
    doc: "URL the platform data source over ingest's events connects with, as given (a user that may only SELECT). Unset: a login role that may only read `ingest.events` and `ingest.projects` is made through `INGEST_DATABASE_URL`, else `DATABASE_URL`.",
  }),
  platformAuditUrl: optionalUrl('DASHBOARD_PLATFORM_AUDIT_URL', ['postgres:', 'postgresql:'], {
    secret: true,
    doc: 'URL the platform data source over audit results connects with, as given (a user that may only SELECT). Unset: a login role that may only read `audit.jobs` is made through `AUDIT_DATABASE_URL`, else `DATABASE_URL`.',
  }),
  smtpUrl: optionalUrl('DASHBOARD_SMTP_URL', ['smtp:', 'smtps:'], {
    secret: true,
    doc: 'SMTP server for alert notifications and dashboard subscriptions (`smtp://user:pass@host:587`, `smtps://…`). Unset: email channels and subscriptions fail with a message saying so (webhook and Slack channels still work).',
  }),
  mailFrom: str('DASHBOARD_MAIL_FROM', {
    default: 'dashboard@localhost',
    doc: 'Sender address of alert and subscription mail.',
  }),
  webhookAllowHosts: list('DASHBOARD_WEBHOOK_ALLOW_HOSTS', {
    default: [],
    doc: 'Comma-separated hosts, addresses or CIDR ranges that webhook and Slack channels may reach although they are on a private network (`hooks.internal,10.2.0.0/16`). Empty: only public addresses, so a URL someone types cannot reach the internal network.',
  }),
  renderUrl: optionalUrl('DASHBOARD_RENDER_URL', ['http:', 'https:'], {
    doc: "Where the headless browser opens the dashboard pages it draws for subscriptions and PNG or PDF downloads: this service's own address as the service can reach it (`http://127.0.0.1:4001`). Unset: DASHBOARD_PUBLIC_URL.",
  }),
  renderConcurrency: int('DASHBOARD_RENDER_CONCURRENCY', {
    default: 2,
    min: 1,
    max: 32,
    doc: "Dashboard pictures this instance draws at once (a person's PNG or PDF download, a subscription's mail), each in a headless Chromium of its own: a few hundred MB and a core while it draws.",
  }),
  renderQueue: int('DASHBOARD_RENDER_QUEUE', {
    default: 2,
    min: 0,
    max: 100,
    doc: 'Downloads that wait for a free picture slot (DASHBOARD_RENDER_CONCURRENCY); one asked for beyond them is answered 503 UNAVAILABLE with `Retry-After` at once. Subscriptions wait whatever the queue holds.',
  }),
  renderTimeout: int('DASHBOARD_RENDER_TIMEOUT', {
    default: 60,
    min: 1,
    max: 600,
    doc: "Seconds one picture may take to draw, from starting the browser to the file (the widgets' queries included); past it the browser is closed, a download is answered 503 UNAVAILABLE and a subscription mails its data without the picture.",
  }),
  schedulerEnabled: bool('DASHBOARD_SCHEDULER', {
    default: true,
    doc: 'Whether this instance evaluates alert rules, delivers notifications and sends subscriptions. Several instances on one database share the work (each due rule is claimed by one, under a lease another takes over if it dies).',
  }),
  schedulerTickMs: int('DASHBOARD_SCHEDULER_TICK_MS', {
    default: 5000,
    min: 50,
    max: 600_000,
    doc: 'How often an instance looks for due alert rules, notifications to deliver and subscriptions to send, in milliseconds.',
  }),
  schedulerLeaseSeconds: int('DASHBOARD_SCHEDULER_LEASE_SECONDS', {
    default: 60,
    min: 2,
    max: 3600,
    doc: 'How long an instance holds a claimed rule, notification or subscription without renewing it: after an instance dies, another takes its work over once this has passed. Renewed while the work runs, so slow queries keep it.',
  }),
  instanceId: optionalStr('DASHBOARD_INSTANCE_ID', {
    doc: 'Name of this instance in the leases it takes (`alert_rules.lease_owner`). Unset: host name and process id.',
  }),
  dbPoolSize: int('DASHBOARD_DB_POOL_SIZE', {
    default: 10,
    min: 2,
    max: 200,
    doc: 'PostgreSQL connections of the dashboard service itself (data sources have their own pools).',
  }),
};

/** `links` is not read from the environment: `platform start` sets it when it runs identity beside the dashboard (src/platform/links.ts). */
export type DashboardConfig = ConfigOf<typeof dashboardSpec> & { links?: DashboardLinks };

/** The dashboard's public base URL without a trailing slash: the login callbacks are built on it. */
export function dashboardPublicUrl(config: Pick<DashboardConfig, 'publicUrl' | 'port'>): string {
  return (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
}

export function loadDashboardConfig(env: NodeJS.ProcessEnv): DashboardConfig {
  const config = readServiceConfig(dashboardSpec, env);
  if (config.jwtSecret !== undefined && Buffer.byteLength(config.jwtSecret) < 32) {
    throw new ConfigError('DASHBOARD_JWT_SECRET', 'DASHBOARD_JWT_SECRET is too short: expected at least 32 bytes');
  }
  if (config.jwtSecret === undefined && env.NODE_ENV === 'production') {
    throw new ConfigError(
      'DASHBOARD_JWT_SECRET',
      'DASHBOARD_JWT_SECRET is required when NODE_ENV=production: expected at least 32 bytes',
    );
  }
  if (config.authDisabled) assertDevelopmentOnly(config.host, env);
  const ownerName = config.bootstrapOwnerName;
  if (ownerName !== undefined && (!ownerName.trim() || [...ownerName].length > 200 || /\p{Cc}/u.test(ownerName))) {
    throw new ConfigError(
      'DASHBOARD_BOOTSTRAP_OWNER_NAME',
      'DASHBOARD_BOOTSTRAP_OWNER_NAME is malformed: expected a name of 1 to 200 characters, not blank, without control characters',
    );
  }
  if (Boolean(config.githubClientId) !== Boolean(config.githubClientSecret)) {
    throw new ConfigError(
      'DASHBOARD_GITHUB_CLIENT_SECRET',
      'DASHBOARD_GITHUB_CLIENT_ID and DASHBOARD_GITHUB_CLIENT_SECRET go together',
    );
  }
  if (Boolean(config.googleClientId) !== Boolean(config.googleClientSecret)) {
    throw new ConfigError(
      'DASHBOARD_GOOGLE_CLIENT_SECRET',
      'DASHBOARD_GOOGLE_CLIENT_ID and DASHBOARD_GOOGLE_CLIENT_SECRET go together',
    );
  }
  try {
    networkPolicy(config.dataSourceDeniedNetworks, config.dataSourceAllowedNetworks);
  } catch (err) {
    throw new ConfigError(
      'DASHBOARD_DATASOURCE_DENIED_NETWORKS',
      `DASHBOARD_DATASOURCE_DENIED_NETWORKS or DASHBOARD_DATASOURCE_ALLOWED_NETWORKS: ${(err as Error).message}`,
    );
  }
  for (const entry of config.webhookAllowHosts)
    if (!isAllowEntry(entry))
      throw new ConfigError(
        'DASHBOARD_WEBHOOK_ALLOW_HOSTS',
        `DASHBOARD_WEBHOOK_ALLOW_HOSTS is malformed: "${entry}" is neither a host name, an address nor a CIDR range such as 10.1.0.0/16`,
      );
  if (!/^[A-Z][A-Z0-9_]*$/.test(config.dataSourceEnvPrefix)) {
    throw new ConfigError(
      'DASHBOARD_DATASOURCE_ENV_PREFIX',
      'DASHBOARD_DATASOURCE_ENV_PREFIX must be upper-case letters, digits and underscores, starting with a letter',
    );
  }
  return config;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** The no-authentication switch must never reach a shared machine: production or a non-loopback address stops the start. */
export function assertDevelopmentOnly(host: string, env: NodeJS.ProcessEnv): void {
  if (env.NODE_ENV === 'production') {
    throw new ConfigError(
      'DASHBOARD_AUTH_DISABLED',
      'DASHBOARD_AUTH_DISABLED=true is refused with NODE_ENV=production',
    );
  }
  if (!LOOPBACK.has(host) && !/^127\.\d+\.\d+\.\d+$/.test(host)) {
    throw new ConfigError(
      'DASHBOARD_AUTH_DISABLED',
      `DASHBOARD_AUTH_DISABLED=true is refused with HOST=${host}: only a loopback address (127.0.0.1, ::1, localhost) may serve without authentication`,
    );
  }
}
