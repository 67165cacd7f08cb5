import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { openSealedString } from '../../kit/crypto.ts';
import { retryDelayMs } from '../../kit/outbound/backoff.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { loopReport, pollLoop } from '../../kit/poll-loop.ts';
import type { ProviderHolder } from './mount.ts';

/**
 * Sends the logout tokens the database queued (migration 022: a live login session ended, a principal deactivated):
 * for each provider session, every app it signed in that registered a `backchannel_logout_uri` gets a logout token
 * (OpenID Connect Back-Channel Logout 1.0) through the provider's own client method, signed with its keys, carrying
 * `sub` and, where the app asked for it, the session's `sid`. Claimed like webhook deliveries (a lease, SKIP LOCKED),
 * retried with backoff; an app told once is not told again.
 */
const LEASE_SECONDS = 60;
const BATCH = 20;
const MAX_ATTEMPTS = 8;
const BACKOFF = { baseMs: 2_000, maxMs: 600_000 };

export interface LogoutDeps {
  db: Database;
  secretKey: Buffer;
  holder: ProviderHolder;
  log: FastifyBaseLogger;
}

interface Queued {
  id: string;
  session_id_hash: string;
  payload: string;
  done_clients: string[];
  attempts: number;
}

/** oidc-provider's Client, whose typings leave out the method its end_session uses. */
interface LogoutClient {
  backchannelLogout(sub: string, sid: string): Promise<void>;
}

interface SessionPayload {
  accountId?: string;
  authorizations?: Record<string, { sid?: string }>;
}

export async function sendDueLogouts(deps: LogoutDeps): Promise<number> {
  const claimed = await deps.db.query<Queued>(
    `UPDATE backchannel_logouts SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $1)
      WHERE id IN (SELECT id FROM backchannel_logouts WHERE state = 'pending' AND next_attempt_at <= now()
                    ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING id::text AS id, session_id_hash, payload, done_clients, attempts`,
    [LEASE_SECONDS, BATCH],
  );
  await Promise.all(claimed.rows.map((q) => sendOne(deps, q)));
  return claimed.rows.length;
}

async function sendOne(deps: LogoutDeps, q: Queued): Promise<void> {
  const session = JSON.parse(
    openSealedString(deps.secretKey, q.payload, `identity.oidc.Session.${q.session_id_hash}`),
  ) as SessionPayload;
  const provider = deps.holder.current;
  const done = new Set(q.done_clients);
  const errors: string[] = [];
  for (const [clientId, authorization] of Object.entries(session.authorizations ?? {})) {
    if (done.has(clientId) || !session.accountId) continue;
    const client = await provider.Client.find(clientId);
    if (!client?.backchannelLogoutUri) {
      done.add(clientId);
      continue;
    }
    try {
      await (client as unknown as LogoutClient).backchannelLogout(session.accountId, authorization.sid ?? '');
      done.add(clientId);
    } catch (err) {
      errors.push(`${clientId}: ${(err as Error).message}`);
    }
  }
  const state = errors.length === 0 ? 'done' : q.attempts >= MAX_ATTEMPTS ? 'failed' : 'pending';
  await deps.db.query(
    `UPDATE backchannel_logouts SET done_clients = $2, state = $3, last_error = $4,
            next_attempt_at = now() + make_interval(secs => $5)
      WHERE id = $1`,
    [q.id, [...done], state, errors.join('; ') || null, retryDelayMs(q.attempts, BACKOFF) / 1000],
  );
  if (errors.length) deps.log.warn({ logout: q.id, errors, state }, 'back-channel logout not delivered to every app');
}

/** Looks for queued logouts every `pollMs` until stopped; a database outage goes to `outage`. */
export function startLogouts(deps: LogoutDeps, pollMs: number, outage: OutageLog): { stop(): Promise<void> } {
  return pollLoop(
    pollMs,
    async () => (await sendDueLogouts(deps)) === BATCH,
    loopReport(deps.log, 'back-channel logouts could not be sent', outage),
  );
}
