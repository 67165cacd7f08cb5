import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../../kit/db.ts';
import { loadTarget } from '../destinations/store.ts';
import { KINDS } from '../vendors/index.ts';
import type { Outcome } from '../vendors/types.ts';
import { scrubber } from './deliver.ts';
import type { ForwardingGuard } from '../guard.ts';
import { post, SendError } from './http.ts';

/** What a test send answers: whether the destination took the event, and what it said, its secrets scrubbed. */
export interface TestSendResult {
  delivered: boolean;
  /** `refused`: the guard kept it from leaving, the address being on the internal network. */
  outcome: Outcome['kind'] | 'unreachable' | 'refused';
  /** The HTTP status the destination answered; null when it could not be reached. */
  status: number | null;
  message: string;
  event_id: string;
}

/**
 * Sends one made-up event (`event.type` `platform.test`) to a destination as a delivery would, paused or not, outside
 * the outbox: nothing is queued, retried or counted, so a test neither fills the dead letters nor moves the figures.
 * Undefined when there is no such destination.
 */
export async function testSend(
  db: Queryable,
  key: Buffer,
  destinationId: string,
  guard: ForwardingGuard,
): Promise<TestSendResult | undefined> {
  const target = await loadTarget(db, key, destinationId, { paused: true });
  if (!target) return undefined;
  const project = await db.query<{ project_id: string }>('SELECT project_id FROM destinations WHERE id = $1', [
    destinationId,
  ]);
  const eventId = randomUUID();
  const event = {
    event_id: eventId,
    project_id: project.rows[0]?.project_id ?? '',
    'session.id': 'platform-test',
    'event.type': 'platform.test',
    'event.name': 'Test event from the console',
    'event.timestamp': new Date().toISOString(),
    'event.sequence': 1,
  };
  const adapter = KINDS[target.kind].adapter;
  const scrub = scrubber(target);
  const request = adapter.request([adapter.record(event, target)], target);
  try {
    const answer = await post(request, guard, new AbortController().signal);
    const outcome = adapter.interpret(answer, 1);
    const message =
      outcome.kind === 'delivered'
        ? `HTTP ${answer.status}: the destination took the test event`
        : outcome.kind === 'partial'
          ? scrub([...outcome.failed.values()][0] ?? `HTTP ${answer.status}`)
          : scrub(outcome.reason);
    return {
      delivered: outcome.kind === 'delivered',
      outcome: outcome.kind,
      status: answer.status,
      message,
      event_id: eventId,
    };
  } catch (err) {
    if (!(err instanceof SendError)) throw err;
    // Refused by the guard: nothing left; the destination's address must change (or an operator allow it).
    return {
      delivered: false,
      outcome: err.refused ? 'refused' : 'unreachable',
      status: null,
      message: scrub(err.message),
      event_id: eventId,
    };
  }
}
