import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFLICT_WINDOW } from '../../src/ingest/events/committer.ts';
import { makeEvent, startIngest } from './helpers.ts';

// Groups are inserted without ON CONFLICT first; one holding a stored event fails as a whole on the unique index and
// is inserted again skipping it, and so are the next CONFLICT_WINDOW groups. Nothing of that may show in what is stored.
test('a group meeting a stored event is inserted again skipping it, and the next groups skip stored events at once', async (t) => {
  const h = await startIngest({}, 'conflicts');
  t.after(() => h.close());
  const { projectId, key } = await h.project();
  const post = (events: unknown[]) =>
    h.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ events }),
    });
  const metric = async (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await h.app.inject({ url: '/metrics' })).body)?.[1] ?? NaN);
  const stored = async () =>
    (
      await h.sql.query<{ n: number }>(
        'SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS d FROM ingest.events',
      )
    ).rows[0]!;

  const first = [makeEvent(projectId), makeEvent(projectId), makeEvent(projectId)];
  assert.equal((await post(first)).json().accepted, 3);
  assert.equal(await metric('ingest_commit_conflict_retries_total'), 0);

  // The plain INSERT meets the stored events: the group is inserted again, storing only the new one.
  const again = await post([...first, makeEvent(projectId)]);
  assert.deepEqual(again.json(), { accepted: 4, rejected: 0, errors: [] });
  assert.equal(await metric('ingest_commit_conflict_retries_total'), 1);
  assert.equal(await metric('ingest_events_duplicate_total'), 3);
  assert.deepEqual(await stored(), { n: 4, d: 4 });

  // Within the window, groups go straight to ON CONFLICT: no further failed attempt, re-sent events skipped.
  for (let i = 0; i < CONFLICT_WINDOW; i++) {
    const answer = await post([first[0], makeEvent(projectId)]);
    assert.equal(answer.statusCode, 202, answer.body);
    assert.equal(answer.json().accepted, 2);
  }
  assert.equal(await metric('ingest_commit_conflict_retries_total'), 1);
  assert.deepEqual(await stored(), { n: 4 + CONFLICT_WINDOW, d: 4 + CONFLICT_WINDOW });

  // After it, plain INSERTs again: a new group of new events goes through without a retry, a re-sent one retries.
  assert.equal((await post([makeEvent(projectId)])).json().accepted, 1);
  assert.equal(await metric('ingest_commit_conflict_retries_total'), 1);
  assert.equal((await post([first[1], makeEvent(projectId)])).json().accepted, 2);
  assert.equal(await metric('ingest_commit_conflict_retries_total'), 2);
  assert.deepEqual(await stored(), { n: 6 + CONFLICT_WINDOW, d: 6 + CONFLICT_WINDOW });
  assert.equal(await metric('ingest_events_duplicate_total'), 3 + CONFLICT_WINDOW + 1);
});

test('the same new events sent twice at once are stored once, both requests answered 202', async (t) => {
  const h = await startIngest({}, 'conflicts_race');
  t.after(() => h.close());
  const { projectId, key } = await h.project();
  const post = (events: unknown[]) =>
    h.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ events }),
    });
  for (let round = 0; round < 5; round++) {
    const events = Array.from({ length: 200 }, () => makeEvent(projectId));
    const answers = await Promise.all([post(events), post(events), post(events.slice(100))]);
    for (const a of answers) assert.equal(a.statusCode, 202, a.body);
  }
  const { rows } = await h.sql.query<{ n: number; d: number }>(
    'SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS d FROM ingest.events',
  );
  assert.deepEqual(rows[0], { n: 1000, d: 1000 });
});
