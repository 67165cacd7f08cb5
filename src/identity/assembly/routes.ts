import { databaseOutage } from '../../kit/app.ts';
import { createAdminGuard } from '../../kit/auth/admin-guard.ts';
import type { TokenVerifier } from '../../kit/auth/admin-guard.ts';
import { registerConsole } from '../console/register.ts';
import { dpopCheck } from '../../kit/auth/dpop.ts';
import { memoryProofIds, redisProofIds } from '../../kit/auth/dpop-replay.ts';
import type { identityAccess } from '../access/checks.ts';
import { registerFastIntrospection } from '../oidc/fast-introspection.ts';
import { registerFastToken } from '../oidc/fast-token.ts';
import { mountProvider } from '../oidc/mount.ts';
import { OrganizationTokens } from '../organizations/token-scope.ts';
import { localTokenVerifier } from '../admin/guard.ts';
import { registerAdmin } from '../admin/routes.ts';
import { registerHeldScope } from '../console/held-scope-routes.ts';
import { registerInteractionPages } from '../interaction/routes.ts';
import { secondFactor, type SecondFactor } from '../mfa/interaction.ts';
import { registerCodeSignIn } from '../email-codes/sign-in-routes.ts';
import type { CodeSignInDeps } from '../email-codes/sign-in.ts';
import { signInCodeJob } from '../email-codes/sign-in-mail.ts';
import { startCourier, type Courier } from '../courier/courier.ts';
import { registerEmailVerification } from '../email-codes/verify-routes.ts';
import { registerAccountSecurity } from '../mfa/account-routes.ts';
import { registerPasskeyAssets } from '../mfa/assets.ts';
import { socialProviders, type SocialProvider } from '../social/registry.ts';
import { registerSocialLogin, signInButtons } from '../social/routes.ts';
import type { SocialDeps } from '../social/sign-in.ts';
import { findEnterpriseProvider } from '../enterprise-sso/provider.ts';
import { enterpriseRouting } from '../enterprise-sso/routing.ts';
import { registerLinkedAccounts } from '../social/account-routes.ts';
import { registerAgentPages } from '../delegation/page-routes.ts';
import { registerPersonDelegationRoutes } from '../delegation/person-routes.ts';
import { registerConsentPages } from '../consent/page-routes.ts';
import { registerSessionPages } from '../account/sessions-routes.ts';
import { registerAccountPages } from '../account/routes.ts';
import { inviteMailer } from '../invites/mailer.ts';
import { registerInviteeRoutes } from '../invites/routes.ts';
import { registerInvitePages } from '../invites/page-routes.ts';
import { registerPasswordLinkPages } from '../password-links/page-routes.ts';
import { resetMailJob } from '../password-links/recovery.ts';
import { registerRecoveryPages } from '../password-links/recovery-routes.ts';
import { registerMarketplace } from '../marketplace/routes.ts';
import { registerSubscriptionRoutes } from '../billing/subscription-routes.ts';
import { registerStripeWebhook } from '../billing/webhook-route.ts';
import { FormGuard } from '../web/form-guard.ts';
import { connectionOfToken } from '../scim/connections.ts';
import { registerScim } from '../scim/routes.ts';
import { fastGrants } from './grants.ts';
import type { ProviderParts } from './provider.ts';
import { sharedThrottle, type Assembly } from './services.ts';

type Access = ReturnType<typeof identityAccess>;

/** Every route of the service, in this order: OAuth, the sign-in pages, the account pages, the APIs. */
export async function registerRoutes(a: Assembly, p: ProviderParts, access: Access): Promise<TokenVerifier> {
  const providers = socialProviders(a.config);
  const courier = mailCourier(a);
  await registerOAuth(a, p);
  await registerSignIn(a, p, providers, courier);
  const verifier = connectAccess(a, p, access);
  await registerAccountPagesOf(a, providers);
  await registerManagement(a);
  await registerConsole(a.app, { db: a.db, accounts: a.accounts, config: a.config });
  await registerSelfService(a, p);
  await registerRecovery(a, courier);
  await registerMarket(a);
  await registerScim(a.app, {
    db: a.db,
    caches: { accounts: a.accounts, clients: a.clients },
    issuer: a.config.issuer,
  });
  return verifier;
}

/**
 * POST /oauth/introspect, and the client-credentials grant, the API-key exchange and key-pair assertions at POST
 * /oauth/token, are answered by routes of their own in the ordinary case (oidc/fast-introspection.ts,
 * oidc/fast-token.ts); the rest goes to the provider.
 */
async function registerOAuth(a: Assembly, p: ProviderParts): Promise<void> {
  const { holder } = p;
  await registerFastIntrospection(a.app, {
    holder,
    clients: a.clients,
    accounts: a.accounts,
    db: a.db,
    issuer: a.config.issuer,
    chainLive: p.chainLive,
  });
  const fast = { ...p.grants, holder, onIssued: a.metrics.fastGrantSucceeded };
  await registerFastToken(a.app, { ...fast, grants: fastGrants(fast) });
  await mountProvider(a.app, holder, a.config.issuer);
}

/**
 * The mails the pages send after their answer ("forgot password", sign-in codes): stored requests, sent by this
 * instance's courier or another's. The close waits for the request being handled; the others wait in the database.
 */
function mailCourier(a: Assembly): Courier {
  const { config, db, mailer } = a;
  const courier = startCourier({
    db,
    log: a.log,
    pollMs: config.webhookPollMs,
    outage: databaseOutage(a.app),
    jobs: {
      password_reset: resetMailJob({ db, mailer, issuer: config.issuer, ttlSeconds: config.passwordResetTtl }),
      sign_in_code: signInCodeJob({ db, secretKey: a.secretKey, mailer, issuer: config.issuer }),
    },
  });
  a.app.addHook('onClose', courier.stop);
  return courier;
}

/** The sign-in pages, their second step and passkeys, and social sign-in. */
async function registerSignIn(
  a: Assembly,
  p: ProviderParts,
  providers: Map<string, SocialProvider>,
  courier: Courier,
): Promise<void> {
  const { config, db, secretKey, accounts, csrf } = a;
  const common = { db, accounts, csrf, issuer: config.issuer, loginSessionTtl: config.loginSessionTtl };
  const second = secondFactor({ ...common, secretKey, throttle: a.throttle });
  const enterprise = { db, secretKey, policy: a.webhooks.policy };
  const social: SocialDeps = {
    ...common,
    secretKey,
    holder: p.holder,
    providers,
    moreProviders: (id) => findEnterpriseProvider(enterprise, id),
    signup: config.socialSignup,
    secondFactor: second,
  };
  await registerInteractionPages(a.app, {
    ...common,
    holder: p.holder,
    throttle: a.throttle,
    secondFactor: second,
    signInExtras: providers.size ? signInButtons({ providers, csrf }) : undefined,
    enterpriseSso: enterpriseRouting({ ...enterprise, social }),
    moreRoutes: (plain, pages) => registerCodeSignIn(plain, codeSignInDeps(a, second, courier), pages),
  });
  await registerAccountSecurity(a.app, { db, secretKey, accounts, csrf, issuer: config.issuer });
  registerPasskeyAssets(a.app);
  await registerSocialLogin(a.app, social);
}

/** Sign-in by emailed code: its throttles (per address asked for, per client), the mail sent after the answer. */
function codeSignInDeps(a: Assembly, second: SecondFactor, courier: Courier): CodeSignInDeps {
  const free = a.config.passwordResetFreeRequests;
  return {
    db: a.db,
    secretKey: a.secretKey,
    accounts: a.accounts,
    csrf: a.csrf,
    loginSessionTtl: a.config.loginSessionTtl,
    mail: courier,
    secondFactor: second,
    throttles: {
      email: sharedThrottle(a.redis, a.log, { freeFailures: free, prefix: 'identity:code:' }),
      address: sharedThrottle(a.redis, a.log, { freeFailures: free * 10, prefix: 'identity:code-client:' }),
    },
  };
}

/** The access checks get what they need: identity's own token verifier, the DPoP check, the admin guard. */
function connectAccess(a: Assembly, p: ProviderParts, access: Access): TokenVerifier {
  const { config, db, accounts } = a;
  const builtIn = config.links?.builtInClients.map((c) => c.client_id);
  const verifier = localTokenVerifier(p.holder, accounts, a.clients, db, new OrganizationTokens(db), builtIn);
  // Seen DPoP proof ids: shared by every instance through Redis when configured, and by the admin guard and the
  // routes outside it that take a person's token.
  const proofIds = a.redis ? redisProofIds(a.redis, 'identity:dpop:', a.log) : memoryProofIds();
  const dpop = dpopCheck({ realm: 'identity', publicUrl: config.issuer, proofIds });
  const guard = createAdminGuard({
    realm: 'identity',
    serviceTokens: [config.adminToken],
    verifier,
    howToEnable: 'sign in as a platform admin, or set IDENTITY_ADMIN_TOKEN',
    publicUrl: config.issuer,
    proofIds,
  });
  access.connect({
    guard,
    verifier,
    dpop,
    adminToken: config.adminToken,
    db,
    accounts,
    clients: a.clients,
    scimTokens: (token) => connectionOfToken(db, token),
  });
  return verifier;
}

/** The signed-in person's pages: agents, connected apps, sessions, linked accounts. */
async function registerAccountPagesOf(a: Assembly, providers: Map<string, SocialProvider>): Promise<void> {
  const page = { db: a.db, accounts: a.accounts, csrf: a.csrf, issuer: a.config.issuer };
  await registerAgentPages(a.app, page);
  await registerConsentPages(a.app, page);
  const providerNames = new Map([...providers].map(([id, p]) => [id, p.name]));
  await registerSessionPages(a.app, { ...page, providerNames });
  await registerLinkedAccounts(a.app, { ...page, secretKey: a.secretKey, providers });
}

/** The management API, and the invited person's side of an invitation. */
async function registerManagement(a: Assembly): Promise<void> {
  const { config, db } = a;
  const invites = {
    db,
    mailer: inviteMailer(a.mailer),
    inviteTtl: config.inviteTtl,
    inviteLink: config.inviteLink ?? new URL('/invites/accept', config.issuer).href,
  };
  await registerAdmin(a.app, {
    db,
    clients: a.clients,
    accounts: a.accounts,
    scopes: a.scopes,
    invites,
    passwordLinks: { issuer: config.issuer, passwordLinkTtl: config.passwordLinkTtl },
    secretKey: a.secretKey,
    webhooks: a.webhooks,
    issuer: config.issuer,
  });
  await registerInviteeRoutes(a.app, { db });
  await registerHeldScope(a.app, { accounts: a.accounts, clients: a.clients });
}

/** The service's own sign-in and password pages, the invitation and password-link pages, the person's agents API. */
async function registerSelfService(a: Assembly, p: ProviderParts): Promise<void> {
  const { config, db, accounts, secretKey } = a;
  await registerAccountPages(a.app, {
    db,
    accounts,
    throttle: a.throttle,
    issuer: config.issuer,
    loginSessionTtl: config.loginSessionTtl,
    secretKey,
    holder: p.holder,
  });
  const forms = new FormGuard(secretKey);
  await registerInvitePages(a.app, { db, accounts, issuer: config.issuer, forms });
  await registerPasswordLinkPages(a.app, { db, accounts, issuer: config.issuer, forms });
  await registerPersonDelegationRoutes(a.app, { db, accounts });
  await registerEmailVerification(a.app, {
    db,
    secretKey,
    accounts,
    mailer: a.mailer,
    issuer: config.issuer,
    forms,
    throttle: sharedThrottle(a.redis, a.log, {
      freeFailures: config.passwordResetFreeRequests,
      prefix: 'identity:verify-email:',
    }),
  });
}

/** "Forgot password": the page, its throttles (per address asked for, per client), the mail sent after the answer. */
async function registerRecovery(a: Assembly, courier: Courier): Promise<void> {
  const { config } = a;
  const free = config.passwordResetFreeRequests;
  await registerRecoveryPages(a.app, {
    issuer: config.issuer,
    forms: new FormGuard(a.secretKey),
    mail: courier,
    ttlSeconds: config.passwordResetTtl,
    throttles: {
      email: sharedThrottle(a.redis, a.log, { freeFailures: free, prefix: 'identity:reset:' }),
      address: sharedThrottle(a.redis, a.log, { freeFailures: free * 10, prefix: 'identity:reset-client:' }),
    },
  });
}

/** The marketplace, subscriptions and the payment provider's webhook. */
async function registerMarket(a: Assembly): Promise<void> {
  await registerMarketplace(a.app, { db: a.db });
  await registerSubscriptionRoutes(a.app, { db: a.db });
  await registerStripeWebhook(a.app, { db: a.db, secrets: a.config.stripeWebhookSecrets });
}
