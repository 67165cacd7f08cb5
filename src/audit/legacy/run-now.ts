import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, codeForStatus } from '../../kit/errors.ts';
import { AuditFailedError } from '../engine/audit-errors.ts';
import type { AuditMetrics } from '../metrics.ts';
import { badRequest } from '../request/resolve.ts';
import type { RunAudit } from '../jobs/worker.ts';
import type { AuditConfig, AuditResult } from '../result/types.ts';

export interface RunNowDeps {
  metrics: AuditMetrics;
  /** Audits running within requests at most (AUDIT_MAX_SYNC_AUDITS); more are 429. */
  maxConcurrent: number;
  run: RunAudit;
}

/**
 * Audits within the request, `maxConcurrent` at a time. A client that hangs up stops its audit, so an abandoned
 * request does not hold a browser. Answers the result, or the reply itself when there is no one left to answer.
 */
export function syncAudits(deps: RunNowDeps) {
  let active = 0;
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    url: URL,
    config: AuditConfig,
  ): Promise<AuditResult | FastifyReply> => {
    if (active >= deps.maxConcurrent) {
      deps.metrics.syncAudits.inc({ outcome: 'busy' });
      throw new HttpError(
        429,
        codeForStatus(429),
        `${deps.maxConcurrent} audits are already running here; retry shortly or queue one with POST /api/v1/audits`,
        { headers: { 'retry-after': '10' } },
      );
    }
    active++;
    const hangUp = abortOnHangUp(request, reply);
    try {
      const result = await deps.run(url.href, config, hangUp.signal, request.auditOwner);
      deps.metrics.syncAudits.inc({ outcome: 'completed' });
      return result;
    } catch (err) {
      if (hangUp.signal.aborted) return abandon(request, reply, url, deps.metrics);
      deps.metrics.syncAudits.inc({ outcome: 'failed' });
      throw failureAnswer(err);
    } finally {
      active--;
      hangUp.release();
    }
  };
}

/** A signal that aborts when the client closes its connection before the reply is written. */
function abortOnHangUp(request: FastifyRequest, reply: FastifyReply): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableEnded) controller.abort();
  };
  request.raw.socket?.once('close', onClose);
  // Gone already while the request was checked: nothing to run for.
  if (request.raw.socket?.destroyed) controller.abort();
  return { signal: controller.signal, release: () => request.raw.socket?.off('close', onClose) };
}

/**
 * The client hung up: no one is left to answer, and its leaving is not a failure of the audit (nor an error to
 * log), so the request ends here without a reply.
 */
function abandon(request: FastifyRequest, reply: FastifyReply, url: URL, metrics: AuditMetrics): FastifyReply {
  metrics.syncAudits.inc({ outcome: 'abandoned' });
  request.log.info({ url: url.href }, 'audit abandoned: the client closed the connection');
  reply.hijack();
  reply.raw.destroy();
  return reply;
}

/** A refused address is the caller's to fix (400); any other audit failure is a 500 saying why. */
function failureAnswer(err: unknown): unknown {
  if (!(err instanceof AuditFailedError)) return err;
  if (!err.retryable && /^refused/.test(err.message)) return badRequest(`url cannot be audited: ${err.message}`);
  return new HttpError(500, codeForStatus(500), `the audit failed: ${err.message}`);
}
