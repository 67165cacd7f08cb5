import { useRef } from 'react';
import { instantOrNever } from '../../app/datetime.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { LoadMore } from '../../data/LoadMore.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useListPages } from '../../data/paging.ts';
import { identityApi, type ApiApplication } from '../api.ts';
import type { ApiTokenEvent } from './types.ts';

const KIND: Record<ApiTokenEvent['token_kind'], string> = {
  access_token: 'access token',
  refresh_token: 'refresh token',
  client_credentials: 'access token (client credentials)',
};
const GRANT: Record<string, string> = {
  authorization_code: 'authorization code',
  refresh_token: 'refresh token',
  client_credentials: 'client credentials',
  token_exchange: 'token exchange',
  jwt_bearer: 'JWT bearer',
};

function whoOf(e: ApiTokenEvent): string {
  if (!e.subject) return 'unknown';
  const s = e.subject;
  const name = s.display_name === s.identifier ? s.identifier : `${s.display_name} (${s.identifier})`;
  return s.type === 'human' ? name : `${name}, ${s.type === 'application' ? 'the app itself' : `a ${s.type}`}`;
}

/**
 * An app's recent token activity at identity, newest first: each token issued, refreshed or revoked, for whom, by
 * which grant and from where; 50 at a time, more on request, read again with Refresh.
 */
export function ActivityPanel({ app }: { app: ApiApplication }) {
  const list = useListPages<ApiTokenEvent>(
    [...keys.identity.application(app.id), 'activity'],
    `/applications/${app.id}/activity`,
    {},
    50,
    identityApi.get,
  );
  const table = useRef<HTMLDivElement>(null);
  const events = list.data?.pages.flatMap((p) => p.items);
  return (
    <section className="screen-section" aria-labelledby="app-activity">
      <h2 id="app-activity">Recent token activity</h2>
      <p className="hint">Tokens are kept until 30 days after they expire: older activity is no longer listed.</p>
      <button type="button" className="secondary" disabled={list.isFetching} onClick={() => void list.refetch()}>
        Refresh the activity
      </button>
      {list.error && (
        <p role="alert" className="error">
          {messageOf(list.error, 'the identity service could not be reached')}
        </p>
      )}
      {events && events.length === 0 && <p>No token was issued to {app.name} yet.</p>}
      {events && events.length > 0 && (
        <>
          <WideTable label="Recent token activity" ref={table}>
            <table>
              <caption>Token activity of {app.name}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col">Grant</th>
                  <th scope="col">For</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {events.map((e) => (
                  <tr key={`${e.event}:${e.token_id}`}>
                    <th scope="row">{instantOrNever(e.at)}</th>
                    <td>
                      {KIND[e.token_kind]} {e.event}
                      {e.reason ? ` (${e.reason})` : ''}
                    </td>
                    <td>{e.grant_type ? (GRANT[e.grant_type] ?? e.grant_type) : 'unknown'}</td>
                    <td>{whoOf(e)}</td>
                    <td>{e.scopes.length ? e.scopes.join(' ') : 'none'}</td>
                    <td>{e.client_ip ?? 'unknown'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </WideTable>
          <LoadMore list={list} shown={events.length} what="events" after={table} />
        </>
      )}
    </section>
  );
}
