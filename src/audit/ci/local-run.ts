import type { CommandIO } from '../../kit/service.ts';
import type { AuditServiceConfig } from '../config.ts';
import { runAudit } from '../engine/auditor.ts';
import { BrowserHost } from '../engine/browser-host.ts';
import { parseAuditUrl, resolveConfig } from '../request/resolve.ts';
import type { AuditResult } from '../result/types.ts';
import { configLimits } from '../runner.ts';
import { createAddressPolicy } from '../../kit/outbound/address-policy.ts';
import { secretNames, sessionUrls } from '../session/resolve.ts';
import { CommandFailure } from '../../kit/cli-runner.ts';
import { asCommandFailure, type RunPlan } from './plan.ts';

/**
 * The audit in this process with a browser of its own, as the service would run it (its settings, defaults and
 * ceilings). The address guard applies as in the service, except that the hosts the run names itself (the URL and
 * the session's goto steps) are allowed: on a developer's machine or a CI runner, auditing `localhost` is the point.
 * Secrets are read from the environment variables of their names.
 */
export async function runLocally(plan: RunPlan, config: AuditServiceConfig, io: CommandIO): Promise<AuditResult> {
  let url: URL;
  let auditConfig: ReturnType<typeof resolveConfig>;
  try {
    url = parseAuditUrl(plan.url);
    auditConfig = resolveConfig(plan.requested, configLimits(config));
  } catch (err) {
    throw asCommandFailure(err);
  }
  const named = [url, ...sessionUrls(auditConfig.session ?? null)].map((u) => u.hostname.replace(/^\[|\]$/g, ''));
  const policy = createAddressPolicy([...config.allowHosts, ...named]);
  const host = new BrowserHost({ info: () => {}, warn: (message) => io.err(message) });
  try {
    return await runAudit(
      url.href,
      auditConfig,
      {
        host,
        policy,
        timing: {
          timeoutMs: config.pageTimeoutSeconds * 1000,
          networkIdleMs: config.networkIdleMs,
          settleMs: config.settleMs,
        },
        pageConcurrency: config.pageConcurrency,
        maxElementsPerRule: config.maxElementsPerRule,
      },
      undefined,
      secretsFromEnvironment(secretNames(auditConfig.session ?? null), process.env),
    );
  } finally {
    await host.close();
  }
}

/** The session's secrets from the environment variables of the same names; a missing one is named. */
export function secretsFromEnvironment(names: readonly string[], env: NodeJS.ProcessEnv): Map<string, string> {
  const missing = names.filter((n) => !env[n]);
  if (missing.length)
    throw new CommandFailure(
      `the session uses ${missing.map((n) => `the secret ${n}`).join(', ')}: set ${missing.length === 1 ? 'the environment variable' : 'the environment variables'} ${missing.join(', ')} (a run without --server reads secrets from the environment)`,
    );
  const short = names.filter((n) => env[n]!.length < 6);
  if (short.length)
    throw new CommandFailure(
      `${short.join(', ')} must have at least 6 characters (reports are scrubbed of secrets; a shorter one would be taken for ordinary text)`,
    );
  return new Map(names.map((n) => [n, env[n]!]));
}
