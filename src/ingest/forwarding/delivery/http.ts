import type { IncomingHttpHeaders } from 'node:http';
import { guardedPost, OutboundError } from '../../../kit/outbound/post.ts';
import { ALLOW_HOSTS_HINT, type ForwardingGuard } from '../guard.ts';
import type { HttpRequest, VendorAnswer } from '../vendors/types.ts';

const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'platform-ingest-forwarder/1';

/** A request that got no answer. `refused`: the guard kept it from leaving (an internal address), nothing was sent. */
export class SendError extends Error {
  readonly refused: boolean;
  constructor(message: string, refused = false) {
    super(message);
    this.refused = refused;
  }
}

/**
 * One POST through the kit's guarded path: the host is resolved and checked against the internal network (unless
 * INGEST_DESTINATION_ALLOW_HOSTS allows it) and the checked address pinned for the connection, so a name cannot
 * answer differently between the check and the connection. One time limit covers the lookup, connecting, upload and
 * the answer, so a slow or silent vendor costs at most `timeoutMs`. Redirects are not followed (a POST of events
 * should not wander, nor be sent on to an internal address). Only the first 64 KB of the answer are read: enough for
 * any error body.
 */
export async function post(request: HttpRequest, guard: ForwardingGuard, stop: AbortSignal): Promise<VendorAnswer> {
  try {
    const answer = await guardedPost(request, guard.policy, {
      timeoutMs: guard.timeoutMs,
      userAgent: USER_AGENT,
      signal: stop,
      maxAnswerBytes: MAX_ANSWER_BYTES,
    });
    return { status: answer.status, headers: toHeaders(answer.headers), text: answer.text };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.stopped) throw new SendError('stopped while sending');
    if (err.refused) throw new SendError(`not sent: ${err.message}; ${ALLOW_HOSTS_HINT}`, true);
    throw new SendError(err.message);
  }
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}
