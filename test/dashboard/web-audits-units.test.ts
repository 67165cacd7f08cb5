import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiRun } from '../../src/audit/api-types.ts';
import { announcement } from '../../web/dashboard/src/audits/runs/announcement.ts';

/** The Audits section's pure parts: what its live region says as runs are read again. */
describe('audits web app units', () => {
  const run = (status: ApiRun['status'], pagesDone: number, pagesMax: number, score: number | null = null) =>
    ({ id: 'r1', url: 'https://shop.example/', status, progress: { pagesDone, pagesMax }, score }) as ApiRun;

  test('a crawl of 20 pages read after every page is said at its start, each quarter and its end: 6 lines, not 22', () => {
    const reads = [run('pending', 0, 20), ...Array.from({ length: 21 }, (_, i) => run('running', i, 20))];
    reads.push(run('completed', 20, 20, 87));
    // Each state is also read twice, as a poll that finds nothing new does.
    const polled = reads.flatMap((r) => [r, r]);
    const said = polled
      .slice(1)
      .map((now, i) => announcement(polled[i], now))
      .filter(Boolean);
    assert.deepEqual(said, [
      'The audit of https://shop.example/ started.',
      'The audit of https://shop.example/: 5 of at most 20 pages.',
      'The audit of https://shop.example/: 10 of at most 20 pages.',
      'The audit of https://shop.example/: 15 of at most 20 pages.',
      'The audit of https://shop.example/: 20 of at most 20 pages.',
      'The audit of https://shop.example/ completed: score 87.',
    ]);
  });

  test('a run seen for the first time, or a one-page audit recording its page, says nothing', () => {
    assert.equal(announcement(undefined, run('running', 3, 10)), undefined);
    assert.equal(announcement(run('running', 0, 1), run('running', 1, 1)), undefined);
    assert.equal(announcement(run('running', 1, 1), run('failed', 1, 1)), 'The audit of https://shop.example/ failed.');
  });
});
