import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { escapeHtml } from '../../src/audit/report/escape.ts';
import { PASSWORD, serveSignInSite, signInSteps, type SignInSite } from './sign-in-site.ts';
import { startAudit, type AuditHarness } from './support.ts';

/**
 * The password a session signs in with, stored as a secret, is never seen again: not in any answer of the service
 * (the secrets, the jobs, the results, the reports in every format, a failed job's error), not in its log at the
 * most verbose level, not in any column of any table of its database. The site echoes the password into its page,
 * and one job fails in a way whose Playwright error repeats what `fill` typed, so both roads a value takes are taken.
 */

let h: AuditHarness;
let service: ServiceProcess;
let site: SignInSite;
/** Every answer's status line, headers and body, as read. */
const answers: string[] = [];

/** The forms the password could appear in: as typed, URL-encoded, form-encoded, HTML-escaped, JSON-escaped. */
const FORMS = [
  PASSWORD,
  encodeURIComponent(PASSWORD),
  new URLSearchParams({ p: PASSWORD }).toString().slice(2),
  escapeHtml(PASSWORD),
  JSON.stringify(PASSWORD).slice(1, -1),
];

function assertNoSecret(where: string, text: string): void {
  for (const form of FORMS)
    assert.ok(!text.includes(form), `${where} carries the password (as ${JSON.stringify(form)})`);
}

async function call(method: string, path: string, body?: unknown): Promise<Response & { text: string }> {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${h.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  answers.push(
    `${method} ${path} ${res.status}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${text}`,
  );
  return Object.assign(res, { text });
}

async function finished(id: string): Promise<Record<string, any>> {
  for (let i = 0; i < 600; i++) {
    const job = JSON.parse((await call('GET', `/api/v1/audits/${id}`)).text);
    if (['completed', 'failed', 'cancelled'].includes(job.status)) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${id} did not finish`);
}

before(async () => {
  h = await startAudit({ AUDIT_CONCURRENCY: '0' }, 'auditsecretscan');
  site = await serveSignInSite();
  service = await startServiceProcess('audit', {
    ...h.env,
    LOG_LEVEL: 'trace',
    AUDIT_CONCURRENCY: '1',
    AUDIT_PAGE_TIMEOUT_SECONDS: '5',
  });
});

after(async () => {
  await service?.stop();
  await site?.close();
  await h?.close();
});

test('no answer, log line or database column carries a secret the audits signed in with', async () => {
  assert.equal((await call('PUT', '/api/v1/secrets/SITE_PASSWORD', { value: PASSWORD })).status, 201);
  await call('GET', '/api/v1/secrets');
  const session = { steps: signInSteps(site.origin) };

  const sync = await call('POST', '/audit', { url: `${site.origin}/account`, crawl: { maxPages: 3 }, session });
  assert.equal(sync.status, 200, sync.text);
  assert.match(sync.text, /value=\\"\[secret\]\\"/, 'the echoed password is in the result, scrubbed');

  const queued = JSON.parse(
    (await call('POST', '/api/v1/audits', { url: `${site.origin}/account`, config: { session } })).text,
  );
  const job = await finished(queued.id);
  assert.equal(job.status, 'completed', job.error);
  for (const query of ['', '?format=json', '?format=html'])
    await call('GET', `/api/v1/audits/${queued.id}/report${query}`);
  for (const query of ['', '?format=json']) await call('GET', `/api/v1/audits/${queued.id}/openacr${query}`);
  await call('GET', '/api/v1/audits');

  // `fill` on an element that takes no text: Playwright's error names the value typed in its call log.
  const steps = signInSteps(site.origin);
  steps[2] = { action: 'fill', selector: 'h1', secret: 'SITE_PASSWORD' };
  const failing = JSON.parse(
    (await call('POST', '/api/v1/audits', { url: `${site.origin}/account`, config: { session: { steps } } })).text,
  );
  const failed = await finished(failing.id);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /^sign-in step 3 of 5 \(fill h1 with the secret SITE_PASSWORD\) failed: /);
  await call('GET', '/metrics');

  for (const answer of answers) assertNoSecret(`the answer ${answer.split('\n')[0]}`, answer);
  // The log at trace level: every request, every job's start and end.
  await new Promise((r) => setTimeout(r, 200));
  const log = service.stdout() + service.stderr();
  assert.match(log, /"msg":"audit completed"/);
  assertNoSecret('the log', log);

  const { rows: tables } = await h.sql.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'audit' AND table_type = 'BASE TABLE'",
  );
  assert.ok(tables.some((t) => t.table_name === 'secrets') && tables.some((t) => t.table_name === 'jobs'));
  for (const { table_name } of tables) {
    const { rows } = await h.sql.query(`SELECT * FROM audit."${table_name}"`);
    assertNoSecret(`the table ${table_name}`, JSON.stringify(rows));
  }
});
