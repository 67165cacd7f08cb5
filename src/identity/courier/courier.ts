import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../kit/db.ts';
import { retryDelayMs } from '../../kit/outbound/backoff.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import { loopReport, pollLoop } from '../../kit/poll-loop.ts';
import {
  claimMailRequest,
  dropExpiredMailRequests,
  type Lifetimes,
  type MailKind,
  type MailRequest,
  type NewMailRequest,
  removeMailRequest,
  retryMailRequest,
  storeMailRequest,
} from './requests.ts';

/** A kind of mail the courier sends: the feature's look-up and mail. */
export interface MailJob {
  /** For the log ("password reset mail"). */
  what: string;
  /** A request older than this is dropped, not mailed late: the lifetime of the link or code the mail brings. */
  lifetimeSeconds: number;
  /**
   * Looks the address up and mails the person if there is one (nothing is sent, and nothing logged, for an address
   * with no account); makes the link or code then, never before. Throws when the mail could not be sent.
   */
  send(request: MailRequest): Promise<void>;
}

export interface Courier {
  /**
   * Stores the request, the same statement whatever the address, and wakes this instance's courier; resolves once the
   * request is stored (or refused, logged, when too many are waiting), so the page answers after the same work.
   */
  ask(request: NewMailRequest): Promise<void>;
  /** Stops looking; resolves once the request being handled is done (the app's close waits for it). */
  stop(): Promise<void>;
}

/** Attempts before a request is given up (logged); with this backoff about 5 minutes, within the shortest lifetime. */
export const MAX_ATTEMPTS = 10;
const BACKOFF = { baseMs: 2_000, maxMs: 60_000 };
/** A claimed request is this instance's for this long: one that dies holding it leaves it to another after that. */
const LEASE_SECONDS = 120;

export interface CourierDeps {
  db: Database;
  log: FastifyBaseLogger;
  jobs: Record<MailKind, MailJob>;
  /** How often to look for requests other instances stored, and retries that came due. */
  pollMs: number;
  /** The app's outage log (kit/app.ts databaseOutage): a database outage is logged there, once. */
  outage?: OutageLog;
}

/**
 * The mails asked for on pages whose answer must not tell whether an address has an account ("forgot password",
 * "email me a sign-in code"), sent after the answer from a durable queue (migration 025): the page stores a request
 * for every address and answers; a courier on any instance claims it, one at a time, and runs its kind's job. Sent or
 * nobody to mail, the request goes; an SMTP failure is tried again with backoff, up to MAX_ATTEMPTS; a request past its
 * lifetime is dropped.
 */
export function startCourier(deps: CourierDeps): Courier {
  const { db, log, jobs } = deps;
  const lifetimes = Object.fromEntries(
    Object.entries(jobs).map(([kind, job]) => [kind, job.lifetimeSeconds]),
  ) as Lifetimes;
  const pass = async (): Promise<boolean> => {
    for (const [kind, count] of await dropExpiredMailRequests(db, lifetimes))
      log.warn({ count }, `${jobs[kind].what} dropped: not sent within its lifetime`);
    const request = await claimMailRequest(db, lifetimes, LEASE_SECONDS);
    if (!request) return false;
    await handle(request);
    return true;
  };
  const handle = async (request: MailRequest): Promise<void> => {
    const job = jobs[request.kind];
    try {
      await job.send(request);
    } catch (err) {
      const why = { request: request.id, attempt: request.attempts, ...failure(err) };
      if (request.attempts < MAX_ATTEMPTS) {
        log.warn(why, `${job.what} not sent: trying again`);
        await retryMailRequest(db, request, retryDelayMs(request.attempts, BACKOFF));
        return;
      }
      log.warn(why, `${job.what} dropped: not sent after ${request.attempts} attempts`);
    }
    await removeMailRequest(db, request);
  };
  const loop = pollLoop(deps.pollMs, pass, loopReport(log, 'queued mails could not be read', deps.outage));
  return {
    async ask(request) {
      if (await storeMailRequest(db, request)) loop.wake();
      else log.warn(`${jobs[request.kind].what} dropped: too many waiting`);
    },
    stop: () => loop.stop(),
  };
}

/**
 * What went wrong, for the log: the error's code, the SMTP reply code, and its message with every address taken out.
 * A refusal names the recipient, and a log listing who has an account is what the pages are built to avoid.
 */
function failure(err: unknown): { code?: string; responseCode?: number; message: string } {
  const e = (err ?? {}) as { code?: unknown; responseCode?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  return {
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.responseCode === 'number' ? { responseCode: e.responseCode } : {}),
    message: message.replace(/[^\s<>@"',;:]+@[^\s<>"',;]+/g, '[address]').slice(0, 300),
  };
}
