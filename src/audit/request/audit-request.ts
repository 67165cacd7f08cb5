import type { AuditConfig } from '../result/types.ts';
import { RefusedDestinationError, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { secretNames, sessionUrls } from '../session/resolve.ts';
import { badRequest, parseAuditUrl, resolveConfig, type ConfigLimits } from './resolve.ts';
import type { RequestedConfig } from './schema.ts';

export interface AuditRequestContext {
  limits: ConfigLimits;
  policy: AddressPolicy;
  /** Which of these secret names the caller has not stored. */
  missingSecrets: (names: string[]) => Promise<string[]>;
  /** Told of a refused host before the 400 is thrown. */
  onRefused?: () => void;
}

/**
 * A request's URL and options as an audit takes them — the URL parsed, the options resolved against the
 * operator's ceilings, the URL's host and those of the session's steps allowed by the address policy, the secrets
 * the session names stored — or a 400 naming what is wrong.
 */
export async function auditRequest(
  rawUrl: string,
  requested: RequestedConfig,
  context: AuditRequestContext,
): Promise<{ url: URL; config: AuditConfig }> {
  const url = parseAuditUrl(rawUrl);
  const config = resolveConfig(requested, context.limits);
  await allowed(url, 'url', context);
  for (const [i, step] of sessionUrls(config.session ?? null).entries())
    await allowed(step, `the session's goto step ${i + 1} (${step.href})`, context);
  const missing = await context.missingSecrets(secretNames(config.session ?? null));
  if (missing.length > 0)
    throw badRequest(
      `session uses ${missing.length === 1 ? 'the secret' : 'the secrets'} ${missing.map((n) => `"${n}"`).join(', ')}, not stored for this credential: store ${missing.length === 1 ? 'it' : 'them'} first with PUT /api/v1/secrets/{name}`,
    );
  return { url, config };
}

async function allowed(url: URL, what: string, context: AuditRequestContext): Promise<void> {
  try {
    await context.policy.resolve(url.hostname);
  } catch (err) {
    if (!(err instanceof RefusedDestinationError)) throw err;
    context.onRefused?.();
    throw badRequest(`${what} cannot be audited: ${err.message}`);
  }
}
