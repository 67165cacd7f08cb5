import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startAudit, type AuditHarness } from './support.ts';

/**
 * `platform audit keys create --export`, as the README's walk uses it: the real command, evaluated by a shell,
 * leaves a working key in $AUDIT_KEY and its id in $AUDIT_KEY_ID.
 */

const CLI = new URL('../../bin/platform.js', import.meta.url).pathname;
const run = promisify(execFile);
let h: AuditHarness;

before(async () => {
  h = await startAudit({ AUDIT_CONCURRENCY: '0' }, 'auditcliexport');
});

after(async () => {
  await h?.close();
});

function shell(script: string) {
  return run('sh', ['-c', script], {
    env: { PATH: process.env.PATH, NODE: process.execPath, CLI, ...h.env, LOG_LEVEL: 'silent' },
  });
}

test('eval "$(platform audit keys create --export)" sets AUDIT_KEY and AUDIT_KEY_ID, and the key works', async () => {
  const { stdout, stderr } = await shell(
    `eval "$("$NODE" "$CLI" audit keys create --name "ci's key" --export)" && printf '%s\\n%s\\n' "$AUDIT_KEY_ID" "$AUDIT_KEY"`,
  );
  // The reminder goes to stderr, so it reaches the person at the terminal and not eval.
  assert.equal(stderr, 'store this key now: it is not kept and cannot be shown again\n');
  const [id, key] = stdout.trimEnd().split('\n');
  assert.match(id!, /^key_[A-Za-z0-9_-]{12}$/);
  assert.match(key!, /^ak_[A-Za-z0-9_-]{43}$/);
  const { rows } = await h.sql.query('SELECT name FROM api_keys WHERE id = $1', [id]);
  assert.deepEqual(rows, [{ name: "ci's key" }]);
  const listed = await h.app.inject({
    method: 'GET',
    url: '/api/v1/audits',
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(listed.statusCode, 200, listed.body);

  await shell(`"$NODE" "$CLI" audit keys revoke '${id}'`);
  const revoked = await h.app.inject({ method: 'GET', url: '/api/v1/audits', headers: { 'x-api-key': key! } });
  assert.equal(revoked.statusCode, 401);
});

test('--export is in the usage, and cannot be combined with --json', async () => {
  const help = await shell(`"$NODE" "$CLI" audit keys create --help`);
  assert.match(help.stdout + help.stderr, /--export\s+print AUDIT_KEY_ID, AUDIT_KEY as shell export lines/);
  await assert.rejects(shell(`"$NODE" "$CLI" audit keys create --json --export`), (err: any) => {
    assert.equal(err.code, 2);
    assert.match(err.stderr, /--json and --export cannot be combined/);
    return true;
  });
});
