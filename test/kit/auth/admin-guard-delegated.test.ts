import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { callerOf, createAdminGuard, type TokenInfo } from '../../../src/kit/auth/admin-guard.ts';
import { HttpError } from '../../../src/kit/errors.ts';

// The guard's rule for tokens an agent holds for a person, on its own: the verifier is the guard's input
// (identity's real one, reporting `delegated`, is exercised end to end in test/identity/delegation.test.ts).
const tokens: Record<string, TokenInfo> = {
  'person-token': { scopes: ['svc:admin'], subject: 'p1', clientId: 'app' },
  'agent-token': { scopes: ['svc:admin'], subject: 'p1', clientId: 'runtime', delegated: true },
};
const guard = createAdminGuard({ realm: 'svc', verifier: async (t) => tokens[t], howToEnable: 'n/a' });
const request = (token: string) =>
  ({ headers: { authorization: `Bearer ${token}` }, log: { warn() {} } }) as unknown as FastifyRequest;

test("a delegated token is refused with 403 FORBIDDEN even with the scope; the person's own token passes", async () => {
  const hook = guard.require('svc:admin');
  const agent = request('agent-token');
  await assert.rejects(
    hook(agent),
    (err: unknown) =>
      err instanceof HttpError &&
      err.statusCode === 403 &&
      err.code === 'FORBIDDEN' &&
      /agent holds for a person/.test(err.message),
  );
  assert.equal(callerOf(agent), undefined);
  const person = request('person-token');
  await hook(person);
  assert.equal(callerOf(person)?.kind, 'access-token');
});

test('a route that allows delegated tokens admits them, still only with the scope', async () => {
  const agent = request('agent-token');
  await guard.require('svc:admin', { allowDelegated: true })(agent);
  assert.deepEqual(callerOf(agent), {
    kind: 'access-token',
    scopes: ['svc:admin'],
    subject: 'p1',
    clientId: 'runtime',
  });
  await assert.rejects(
    guard.require('svc:other', { allowDelegated: true })(request('agent-token')),
    (err: unknown) => err instanceof HttpError && err.statusCode === 403 && /scope "svc:other"/.test(err.message),
  );
});
