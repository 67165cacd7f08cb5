import type { AuditServiceConfig } from './config.ts';
import type { BrowserHost } from './engine/browser-host.ts';
import { runAudit, type AuditorOptions } from './engine/auditor.ts';
import type { RunAudit } from './jobs/worker.ts';
import { assessWithLlm } from './llm/assess.ts';
import type { AuditMetrics } from './metrics.ts';
import type { ConfigLimits } from './request/resolve.ts';
import type { AddressPolicy } from '../kit/outbound/address-policy.ts';
import { openSecrets } from './secrets/store.ts';
import { secretNames } from './session/resolve.ts';
import type { Database } from '../kit/db.ts';

/** The service's audit, for its worker and `POST /audit`: runAudit with the configured settings, counted in the metrics. */
export function serviceAuditRunner(
  config: AuditServiceConfig,
  deps: { host: BrowserHost; policy: AddressPolicy; metrics: AuditMetrics; db: Database },
): RunAudit {
  const { metrics } = deps;
  const options: AuditorOptions = {
    host: deps.host,
    policy: deps.policy,
    timing: {
      timeoutMs: config.pageTimeoutSeconds * 1000,
      networkIdleMs: config.networkIdleMs,
      settleMs: config.settleMs,
    },
    pageConcurrency: config.pageConcurrency,
    maxElementsPerRule: config.maxElementsPerRule,
    llm: configuredLlm(config),
    // Pages are counted as they are recorded: an audit whose only page failed (a site down, a 404) throws and has
    // no result, and its page must still count as failed.
    onPage: (page) => {
      metrics.pages.inc({ outcome: page.status });
      if (page.status === 'audited') metrics.pageSeconds.observe(page.durationMs / 1000);
    },
  };
  return async (url, auditConfig, signal, owner) => {
    // Opened for this audit only, and only those its session names.
    const secrets = await openSecrets(deps.db, config.secretKey, owner, secretNames(auditConfig.session ?? null));
    metrics.running.inc();
    try {
      return await runAudit(url, auditConfig, options, signal, secrets);
    } finally {
      metrics.running.dec();
    }
  };
}

/** LLM assistance through the configured providers; a request that names none gets the first one with a key. */
function configuredLlm(config: AuditServiceConfig): NonNullable<AuditorOptions['llm']> {
  // So `llm: {enabled: true}` works on a configured server.
  const defaultProvider = config.openaiApiKey
    ? ('openai' as const)
    : config.anthropicApiKey
      ? ('anthropic' as const)
      : ('openai' as const);
  return (facts, auditConfig, signal) =>
    assessWithLlm(
      facts,
      { provider: auditConfig.llm.provider ?? defaultProvider, model: auditConfig.llm.model },
      config,
      signal,
    );
}

/** The operator's defaults and ceilings for the options a request may set. */
export function configLimits(config: AuditServiceConfig): ConfigLimits {
  return {
    defaultVersion: config.defaultVersion,
    defaultLevel: config.defaultLevel,
    maxDepth: config.maxDepth,
    maxPages: config.maxPages,
  };
}
