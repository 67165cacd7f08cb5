import type { Redis } from 'ioredis';
import { knownScopes } from '../console/register.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { openInvalidationBus, type InvalidationBus } from '../../kit/invalidation.ts';
import { memoryThrottle, redisThrottle, withFallback, type Throttle } from '../../kit/throttle.ts';
import type { IdentityConfig } from '../config.ts';
import type { IdentityMetrics } from '../metrics.ts';
import { PrincipalDirectory } from '../principals/directory.ts';
import { ClientStore } from '../oidc/clients.ts';
import { clientKeys } from '../credentials/client-keys.ts';
import { CsrfTokens } from '../web/csrf.ts';
import { smtpMailer, type Mailer } from '../../kit/outbound/mail.ts';
import { createAddressPolicy } from '../../kit/outbound/address-policy.ts';
import type { DeliveryDeps } from '../webhooks/deliver.ts';

/** What every assembly step is given: the app being built and the service's shared parts. */
export interface Assembly {
  config: IdentityConfig;
  app: App;
  db: Database;
  secretKey: Buffer;
  log: FastifyBaseLogger;
  redis: Redis | undefined;
  bus: InvalidationBus;
  metrics: IdentityMetrics;
  /** Sign-in slow-down per account and address. */
  throttle: Throttle;
  clients: ClientStore;
  accounts: PrincipalDirectory;
  /** Every scope the service knows: built-in and IDENTITY_EXTRA_SCOPES. */
  scopes: string[];
  csrf: CsrfTokens;
  /** Mail over IDENTITY_SMTP_URL (invitations, and any flow that mails a person). */
  mailer: Mailer;
  /** What webhook sending needs: also used by back-channel logout, which reaches apps' URLs the same guarded way. */
  webhooks: DeliveryDeps;
  /** Timers the app's close clears. */
  timers: NodeJS.Timeout[];
}

/** The service's shared parts, once the app exists (its logger): the invalidation bus, the throttle, the caches. */
export async function openServices(
  base: Pick<Assembly, 'config' | 'app' | 'db' | 'redis' | 'metrics' | 'timers'>,
): Promise<Assembly> {
  const { config, app, db, redis } = base;
  const log = app.log;
  // Cached apps, secrets and principals are dropped on every instance at once when one of them changes.
  const bus = await openInvalidationBus({ redisUrl: config.redisUrl, service: 'identity', log, publisher: redis });
  return {
    ...base,
    secretKey: config.secretKey,
    log,
    bus,
    throttle: signInThrottle(config, redis, log),
    clients: new ClientStore(db, 5_000, bus, clientKeys(db)),
    accounts: new PrincipalDirectory(db, 5_000, bus),
    scopes: knownScopes(config),
    csrf: new CsrfTokens(config.secretKey),
    mailer: smtpMailer(config.smtpUrl, config.mailFrom, log, 'IDENTITY_SMTP_URL'),
    webhooks: { db, secretKey: config.secretKey, policy: createAddressPolicy(config.webhookAllowHosts), log },
  };
}

/** Sign-in slow-down per account and address: shared by every instance through Redis when configured. */
function signInThrottle(config: IdentityConfig, redis: Redis | undefined, log: FastifyBaseLogger): Throttle {
  return sharedThrottle(redis, log, { freeFailures: config.signInFreeFailures, prefix: 'identity:signin:' });
}

/** A throttle shared by every instance through Redis when configured, this instance's memory while Redis fails. */
export function sharedThrottle(
  redis: Redis | undefined,
  log: FastifyBaseLogger,
  options: { freeFailures: number; prefix: string },
): Throttle {
  const localThrottle = memoryThrottle({ freeFailures: options.freeFailures });
  return redis ? withFallback(redisThrottle(redis, options), localThrottle, log) : localThrottle;
}
