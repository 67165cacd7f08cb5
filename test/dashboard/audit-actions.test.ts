import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { AUDIT_ACTIONS } from '../../src/dashboard/audit/actions.ts';

const SRC = new URL('../../src/dashboard/', import.meta.url);

/** The `<thing>.<verb>` literals of every file of the service that writes audit records. */
function recordedActions(): Set<string> {
  const found = new Set<string>();
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(new URL(file, SRC), 'utf8');
    if (!text.includes('recordAudit(')) continue;
    for (const m of text.matchAll(/'([a-z]+\.[a-z_]+)'/g)) found.add(m[1]!);
  }
  return found;
}

/**
 * The console's audit log offers AUDIT_ACTIONS as its action filter (web-admin.test.ts checks the select): it must be
 * exactly what the service records. Its hand-kept copy in the web app lacked saved queries, alert rules and channels,
 * subscriptions and user.rename, so those records could not be filtered for.
 */
test('the shared list of audit actions is every action the service records, and no other', () => {
  assert.deepEqual([...recordedActions()].sort(), [...AUDIT_ACTIONS].sort());
  assert.equal(new Set(AUDIT_ACTIONS).size, AUDIT_ACTIONS.length, 'no action twice');
});
