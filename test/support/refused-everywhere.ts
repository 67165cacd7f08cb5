import assert from 'node:assert/strict';

/**
 * Polls every instance until it refuses a revoked credential (`status` answers the status a request with it gets),
 * and fails when one still accepts it 5 s after the announcement: an invalidation published over Redis reaches
 * each instance on its own connection, a moment apart, but never only when its cached copy expires.
 */
export async function refusedEverywhere<A>(
  instances: A[],
  status: (instance: A) => Promise<number>,
  codes: { accepted: number; refused: number },
): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (const instance of instances) {
    for (;;) {
      const code = await status(instance);
      if (code === codes.refused) break;
      assert.equal(code, codes.accepted);
      assert.ok(Date.now() < deadline, 'an instance still accepts the revoked key 5 s later (it waits for its expiry)');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
