import { useEffect, useRef, useState } from 'react';
import type { LiveRecord } from '../../../../../src/ingest/live/record-types.ts';
import { ApiError } from '../../api/client.ts';
import { messageOf } from '../../data/errors.ts';
import { eventsApi } from '../explorer/api.ts';
import { serverEvents } from './sse.ts';

export type { LiveRecord };
export type StreamState =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'retrying'; message: string }
  | { kind: 'failed'; message: string };

export interface LiveQuery {
  projectId: string;
  type: string;
  user: string;
  session: string;
  rejected: boolean;
  /** Leave out the project's internal and test users (`internal=exclude`, as the explorer's box). */
  hideInternal: boolean;
}

/** The stream's address: one per query content, so an equal query keeps its connection. */
function livePath(query: LiveQuery): string {
  const params = new URLSearchParams();
  if (query.type) params.set('type', query.type);
  if (query.user.trim()) params.set('user', query.user.trim());
  if (query.session.trim()) params.set('session', query.session.trim());
  params.set('rejected', String(query.rejected));
  if (query.hideInternal) params.set('internal', 'exclude');
  return `/projects/${encodeURIComponent(query.projectId)}/live?${params}`;
}

/**
 * A project's live events (ingest's `/live`, read with fetch so the console's token goes in a header), handed to
 * `onRecord` as they come; `onDropped` with the count the service left out. Reconnects after a lost connection, a
 * little later each time; a refusal (no such project, no right) ends it.
 */
export function useLiveStream(
  query: LiveQuery | undefined,
  onRecord: (r: LiveRecord) => void,
  onDropped: (count: number) => void,
): StreamState {
  const [state, setState] = useState<StreamState>({ kind: 'connecting' });
  const handlers = useRef({ onRecord, onDropped });
  handlers.current = { onRecord, onDropped };
  const path = query ? livePath(query) : undefined;
  useEffect(() => {
    if (!path) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const connect = async () => {
      setState({ kind: 'connecting' });
      try {
        const response = await eventsApi.stream(path, controller.signal);
        for await (const e of serverEvents(response.body!)) {
          if (e.event === 'ready') {
            failures = 0;
            setState({ kind: 'live' });
          } else if (e.event === 'accepted' || e.event === 'rejected') handlers.current.onRecord(JSON.parse(e.data));
          else if (e.event === 'dropped') handlers.current.onDropped((JSON.parse(e.data) as { count: number }).count);
        }
        if (controller.signal.aborted) return;
        failures++;
        setState({ kind: 'retrying', message: 'the connection ended' });
      } catch (err) {
        if (controller.signal.aborted) return;
        if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
          setState({ kind: 'failed', message: messageOf(err) });
          return;
        }
        failures++;
        setState({ kind: 'retrying', message: messageOf(err, 'the ingest service could not be reached') });
      }
      timer = setTimeout(() => void connect(), Math.min(30_000, 1_000 * 2 ** Math.min(failures, 5)));
    };
    void connect();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [path]);
  return state;
}
