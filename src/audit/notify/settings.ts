import type { Queryable } from '../../kit/db.ts';
import { RefusedDestinationError, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { newWebhookSecret } from '../../kit/outbound/standard-webhooks.ts';
import { badRequest } from '../request/resolve.ts';
import { sealWebhookSecret } from './send.ts';
import { getSettings, putSettings, type StoredSettings } from './store.ts';

export interface SettingsAnswer {
  emails: string[];
  webhookUrl: string | null;
  onScoreDrop: boolean;
  onNewFailures: boolean;
  hasWebhookSecret: boolean;
  webhookSecret?: string;
  updatedAt: string | null;
}

export const settingsAnswer = (s: StoredSettings, secret?: string): SettingsAnswer => ({
  emails: s.emails,
  webhookUrl: s.webhookUrl,
  onScoreDrop: s.onScoreDrop,
  onNewFailures: s.onNewFailures,
  hasWebhookSecret: s.webhookSecretSealed !== null,
  ...(secret ? { webhookSecret: secret } : {}),
  updatedAt: s.updatedAt,
});

/**
 * Replaces the site's notice settings. A webhook URL is checked as a notice will be sent (http or https, no user in
 * it, its host's addresses allowed by the webhook policy); a webhook set where there was none, or `newSecret`, gets a
 * new signing secret, answered this once; removing the webhook drops its secret.
 */
export async function replaceSettings(
  deps: { db: Queryable; policy: AddressPolicy; secretKey: Buffer },
  siteId: string,
  body: {
    emails: string[];
    webhookUrl: string | null;
    onScoreDrop: boolean;
    onNewFailures: boolean;
    newSecret?: boolean | undefined;
  },
): Promise<SettingsAnswer> {
  const webhookUrl = body.webhookUrl === null ? null : await checkedWebhook(body.webhookUrl, deps.policy);
  const emails = [...new Set(body.emails.map((e) => e.trim().toLowerCase()))];
  const before = await getSettings(deps.db, siteId);
  let secret: string | undefined;
  let sealed = webhookUrl ? before.webhookSecretSealed : null;
  if (webhookUrl && (!sealed || body.newSecret)) {
    secret = newWebhookSecret();
    sealed = sealWebhookSecret(deps.secretKey, siteId, secret);
  }
  await putSettings(deps.db, siteId, {
    emails,
    webhookUrl,
    webhookSecretSealed: sealed,
    onScoreDrop: body.onScoreDrop,
    onNewFailures: body.onNewFailures,
  });
  return settingsAnswer(await getSettings(deps.db, siteId), secret);
}

async function checkedWebhook(raw: string, policy: AddressPolicy): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw badRequest('webhookUrl must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badRequest(`webhookUrl must use http or https; got ${url.protocol.replace(':', '')}`);
  if (url.username || url.password) throw badRequest('webhookUrl must not carry a user name or password');
  try {
    await policy.resolve(url.hostname);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw badRequest(`webhookUrl cannot be reached: ${err.message}`);
    throw err;
  }
  return url.href;
}
