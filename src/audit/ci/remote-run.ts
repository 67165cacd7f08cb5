import { CommandFailure } from '../../kit/cli-runner.ts';
import type { AuditResult } from '../result/types.ts';
import type { RunPlan } from './plan.ts';

/** How often a job is asked for while it runs. */
const POLL_MS = 2_000;

/** The audit service's API as a CI run uses it, with the run's API key. */
export class AuditServer {
  readonly #base: string;
  readonly #key: string;
  readonly #pollMs: number;

  constructor(server: { url: string; key: string }, pollMs = POLL_MS) {
    this.#base = server.url;
    this.#key = server.key;
    this.#pollMs = pollMs;
  }

  /** Stores, for this key, the secrets the session names that are set in the environment; others must be stored already. */
  async storeSecrets(names: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
    const stored: string[] = [];
    for (const name of names) {
      const value = env[name];
      if (!value) continue;
      await this.#call('PUT', `/api/v1/secrets/${name}`, { value });
      stored.push(name);
    }
    return stored;
  }

  /** The newest completed run of `url` on `branch` by this key, or null when there is none. */
  async lastRun(url: string, branch: string): Promise<{ id: string; finishedAt: string; result: AuditResult } | null> {
    const query = new URLSearchParams({ status: 'completed', branch, url, limit: '1' });
    const page = (await this.#call('GET', `/api/v1/audits?${query}`)) as { items: Array<{ id: string }> };
    const id = page.items[0]?.id;
    if (!id) return null;
    const job = (await this.#call('GET', `/api/v1/audits/${id}`)) as { finishedAt: string; result: AuditResult };
    return { id, finishedAt: job.finishedAt, result: job.result };
  }

  /** Queues the audit and waits for it; a failed job is the run's failure, a job past the time limit is cancelled. */
  async audit(plan: RunPlan, onQueued?: (id: string) => void): Promise<{ id: string; result: AuditResult }> {
    const created = (await this.#call('POST', '/api/v1/audits', {
      url: plan.url,
      config: plan.requested,
      ...(plan.branch ? { branch: plan.branch } : {}),
    })) as { id: string };
    onQueued?.(created.id);
    const deadline = Date.now() + plan.timeoutMs;
    for (;;) {
      const job = (await this.#call('GET', `/api/v1/audits/${created.id}`)) as {
        status: string;
        error: string | null;
        result?: AuditResult;
      };
      if (job.status === 'completed' && job.result) return { id: created.id, result: job.result };
      if (job.status === 'failed') throw new CommandFailure(`the audit failed: ${job.error ?? 'no reason given'}`);
      if (job.status === 'cancelled') throw new CommandFailure(`the audit ${created.id} was cancelled`);
      if (Date.now() > deadline) {
        await this.#call('DELETE', `/api/v1/audits/${created.id}`).catch(() => {});
        throw new CommandFailure(
          `the audit ${created.id} did not finish within ${Math.round(plan.timeoutMs / 1000)} s (--timeout); it was cancelled`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
    }
  }

  async #call(method: string, path: string, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new CommandFailure(`the audit service at ${this.#base} could not be reached (${cause})`);
    }
    const text = await res.text();
    if (res.ok) return text ? JSON.parse(text) : null;
    let message = text.slice(0, 300);
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // Not the service's error shape (a proxy's page): its start is shown as it is.
    }
    throw new CommandFailure(`the audit service answered ${res.status} to ${method} ${path.split('?')[0]}: ${message}`);
  }
}
