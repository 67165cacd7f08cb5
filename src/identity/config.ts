import { ConfigError, int, list, oneOf, optionalStr, optionalUrl, str, url, type ConfigOf } from '../kit/config.ts';
import { oidcProvidersVariable } from '../kit/upstream-login/config.ts';
import { commonVariables, readServiceConfig } from '../kit/service-config.ts';
import { adminTokenVariable } from '../kit/auth/config.ts';
import { allowHostsVariable } from '../kit/outbound/config.ts';
import { corsOriginsVariable } from '../kit/cors.ts';
import type { IdentityLinks } from './apps/built-in-clients.ts';

export const IDENTITY_PORT = 4000;

export const identitySpec = {
  ...commonVariables('identity', IDENTITY_PORT),
  adminToken: adminTokenVariable(
    'identity',
    'only access tokens of a platform admin carrying the `admin` scope open it.',
  ),
  issuer: url('IDENTITY_ISSUER', ['http:', 'https:'], {
    default: 'http://localhost:4000',
    doc: 'Public base URL of the identity service: the OpenID issuer, and the origin of every endpoint in discovery.',
  }),
  loginSessionTtl: int('IDENTITY_LOGIN_SESSION_TTL', {
    default: 43_200,
    min: 60,
    max: 2_592_000,
    doc: 'Absolute lifetime of a browser login session (the `__Host-svc_login` cookie), in seconds.',
  }),
  corsOrigins: corsOriginsVariable(
    'identity',
    "With the dashboard started beside it by `platform start`, the dashboard's origin (the console) is allowed without this; the token endpoint allows a public app's own redirect origins whatever this says.",
  ),
  extraScopes: list('IDENTITY_EXTRA_SCOPES', {
    default: [],
    doc: 'API scopes the server knows besides openid, profile, email, offline_access and admin (comma-separated).',
  }),
  keyRefreshSeconds: int('IDENTITY_KEY_REFRESH_SECONDS', {
    default: 60,
    min: 1,
    max: 86_400,
    doc: 'How often a running server looks for rotated signing keys, in seconds; also how long a rotated key waits, published, before it signs (unless rotated with `--immediately`).',
  }),
  smtpUrl: optionalUrl('IDENTITY_SMTP_URL', ['smtp:', 'smtps:'], {
    doc: 'SMTP server for invitation and password-reset mail (`smtp://user:pass@host:587`, `smtps://…`); unset, invitations are made but not mailed (their link is in the API answer), and "forgot password" sends nothing.',
  }),
  mailFrom: str('IDENTITY_MAIL_FROM', {
    default: 'identity@localhost',
    doc: 'Sender address of invitation and password-reset mail.',
  }),
  webhookAllowHosts: allowHostsVariable(
    'IDENTITY_WEBHOOK_ALLOW_HOSTS',
    'webhooks, back-channel logout and enterprise SSO issuers',
  ),
  webhookPollMs: int('IDENTITY_WEBHOOK_POLL_MS', {
    default: 1_000,
    min: 50,
    doc: 'How often each instance looks for webhook deliveries, back-channel logouts and "forgot password" and sign-in code mails that are due (new ones stored by other instances, and retries), in milliseconds.',
  }),
  inviteLink: optionalUrl('IDENTITY_INVITE_LINK', ['http:', 'https:'], {
    doc: "Page the invitation link opens, with `?token=…` added; default `<IDENTITY_ISSUER>/invites/accept`. Point it at your app's page that signs the person in and calls `POST /api/v1/invitations/accept`.",
  }),
  inviteTtl: int('IDENTITY_INVITE_TTL', {
    default: 604_800,
    min: 60,
    max: 7_776_000,
    doc: 'Lifetime of an invitation (and of each re-sent one), in seconds.',
  }),
  passwordLinkTtl: int('IDENTITY_PASSWORD_LINK_TTL', {
    default: 604_800,
    min: 300,
    max: 2_592_000,
    doc: 'Lifetime of a one-time "choose your password" link (the dashboard\'s Add user, when `platform start` links it), in seconds.',
  }),
  passwordResetTtl: int('IDENTITY_PASSWORD_RESET_TTL', {
    default: 1_800,
    min: 300,
    max: 86_400,
    doc: 'Lifetime of a mailed "forgot password" link, in seconds (30 min by default; it also works only once).',
  }),
  passwordResetFreeRequests: int('IDENTITY_PASSWORD_RESET_FREE_REQUESTS', {
    default: 3,
    min: 1,
    max: 100,
    doc: '"Forgot password" requests, emailed sign-in codes and email verification codes allowed per email address (or person) within an hour before each further one must wait (doubling from 1 s up to 15 min); a client address may ask ten times as many.',
  }),
  devicePollInterval: int('IDENTITY_DEVICE_POLL_INTERVAL', {
    default: 5,
    min: 1,
    max: 60,
    doc: 'Seconds a device (RFC 8628 device sign-in) must wait between polls of the token endpoint; a sooner poll is answered `slow_down`.',
  }),
  delegationMaxDepth: int('IDENTITY_DELEGATION_MAX_DEPTH', {
    default: 3,
    min: 1,
    max: 10,
    doc: 'Most agents in one delegation chain (person → agent → sub-agent …): an exchange that would make it longer is refused.',
  }),
  stripeWebhookSecrets: list('IDENTITY_STRIPE_WEBHOOK_SECRET', {
    default: [],
    secret: true,
    doc: 'Signing secret of the Stripe webhook endpoint (`whsec_…`) that `POST /api/v1/webhooks/stripe` verifies; comma-separated to accept two while a secret is rolled. Unset: the endpoint answers 503.',
  }),
  githubClientId: optionalStr('IDENTITY_GITHUB_CLIENT_ID', {
    doc: 'Client id of a GitHub OAuth app: shows "Continue with GitHub" on the sign-in page. Its callback URL is `<IDENTITY_ISSUER>/upstream/github/callback`.',
  }),
  githubClientSecret: optionalStr('IDENTITY_GITHUB_CLIENT_SECRET', {
    secret: true,
    doc: 'Client secret of that GitHub OAuth app.',
  }),
  githubUrl: url('IDENTITY_GITHUB_URL', ['http:', 'https:'], {
    default: 'https://github.com',
    doc: 'Web URL of GitHub (its authorize and token endpoints); a GitHub Enterprise Server URL works too.',
  }),
  githubApiUrl: url('IDENTITY_GITHUB_API_URL', ['http:', 'https:'], {
    default: 'https://api.github.com',
    doc: 'REST API URL of GitHub (`/user`, `/user/emails`); `https://HOST/api/v3` for GitHub Enterprise Server.',
  }),
  googleClientId: optionalStr('IDENTITY_GOOGLE_CLIENT_ID', {
    doc: 'OAuth client id at Google: shows "Continue with Google" on the sign-in page. Its redirect URI is `<IDENTITY_ISSUER>/upstream/google/callback`.',
  }),
  googleClientSecret: optionalStr('IDENTITY_GOOGLE_CLIENT_SECRET', {
    secret: true,
    doc: 'OAuth client secret at Google.',
  }),
  googleIssuer: url('IDENTITY_GOOGLE_ISSUER', ['http:', 'https:'], {
    default: 'https://accounts.google.com',
    doc: "Google's OpenID issuer; its discovery document names the endpoints.",
  }),
  oidcProviders: oidcProvidersVariable(
    'IDENTITY_OIDC_PROVIDERS',
    ['github', 'google'],
    'More OpenID Connect issuers to sign in with, as a JSON array of `{"id","issuer","clientId","clientSecret","name"}` (`name` is shown on the button). Each one\'s redirect URI is `<IDENTITY_ISSUER>/upstream/<id>/callback`.',
  ),
  socialSignup: oneOf('IDENTITY_SOCIAL_SIGNUP', ['create', 'refuse'] as const, {
    default: 'create',
    doc: 'What a first social sign-in that links to no existing account does: `create` a new human, or `refuse` (only people who already have an account, with the same verified email, may sign in upstream).',
  }),
  accessTokenCommit: oneOf('IDENTITY_ACCESS_TOKEN_COMMIT', ['asynchronous', 'synchronous'] as const, {
    default: 'asynchronous',
    doc: "How an issued access token's row is committed in PostgreSQL. `asynchronous`: without waiting for its WAL flush (the row is readable at once, so introspection and revocation see it as before; a PostgreSQL crash within at most 600 ms (3 × wal_writer_delay) of issuing can lose the token, which then introspects as inactive and the client asks again). `synchronous`: like everything else. Refresh tokens, revocations, grants and assertion jtis are always synchronous (docs/decisions.md).",
  }),
  signInFreeFailures: int('IDENTITY_SIGNIN_FREE_FAILURES', {
    default: 5,
    min: 1,
    max: 100,
    doc: 'Failed sign-ins allowed per account and per address before each further attempt must wait (doubling from 1 s up to 15 min).',
  }),
};

/** `links` is not read from the environment: `platform start` sets it when it runs other services beside identity (src/platform/links.ts). */
export type IdentityConfig = ConfigOf<typeof identitySpec> & { links?: IdentityLinks };

export function loadIdentityConfig(env: NodeJS.ProcessEnv): IdentityConfig {
  const config = readServiceConfig(identitySpec, env);
  if (Boolean(config.githubClientId) !== Boolean(config.githubClientSecret))
    throw new ConfigError(
      'IDENTITY_GITHUB_CLIENT_SECRET',
      'IDENTITY_GITHUB_CLIENT_ID and IDENTITY_GITHUB_CLIENT_SECRET go together',
    );
  if (Boolean(config.googleClientId) !== Boolean(config.googleClientSecret))
    throw new ConfigError(
      'IDENTITY_GOOGLE_CLIENT_SECRET',
      'IDENTITY_GOOGLE_CLIENT_ID and IDENTITY_GOOGLE_CLIENT_SECRET go together',
    );
  return config;
}

/** Scopes every deployment knows; `admin` is the management API's scope, granted only to platform admins. */
export const BUILT_IN_SCOPES = ['openid', 'profile', 'email', 'offline_access', 'admin'] as const;
export const ADMIN_SCOPE = 'admin';
