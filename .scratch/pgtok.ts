import pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { freshPostgres } from '/work/main/test/support/postgres.ts';
import { openDatabase } from '/work/main/src/kit/db.ts';
import { migrate } from '/work/main/src/kit/migrations.ts';
import { readFileSync } from 'node:fs';

const d = await freshPostgres('pgtok');
const db = await openDatabase({ url: d.url, dataDir: '/tmp/x', schema: 'identity' });
await migrate(db, new URL('file:///work/main/src/identity/migrations/'));
const app = await db.query<{ id: string }>(`INSERT INTO principals (type, identifier, display_name) VALUES ('service', 'svc-x', 'x') RETURNING id`).catch(async (e) => { console.error(e.message); process.exit(1); });
const principalId = app.rows[0]!.id;
const appRow = await db.query<{ id: string }>(`INSERT INTO oauth_apps (client_id, name, app_type, principal_id) VALUES ('c1', 'a', 'machine', $1) RETURNING id`, [principalId]);
const appId = appRow.rows[0]!.id;
await db.close();

const src = readFileSync('/work/main/src/identity/oidc/token-writer.ts', 'utf8');
const COLUMN_TYPES = ['text', 'text', 'text', 'text', 'jsonb', 'jsonb', 'text', 'timestamptz', 'timestamptz', 'text', 'text', 'text', 'uuid', 'text', 'uuid', 'text', 'text'];
const INSERT_INTO = `INSERT INTO oauth_tokens (kind, access_token_signature, refresh_token_signature, family_id, grant_hash, scopes, audience,
  session_id, access_expires_at, refresh_expires_at, client_ip, user_agent, subject, principal_id, client_id, app_id, payload, dpop_jkt)`;
const arrays = COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ');
const conflict = process.env.CONFLICT ?? 'ON CONFLICT (access_token_signature) DO UPDATE SET payload = EXCLUDED.payload, access_expires_at = EXCLUDED.access_expires_at, refresh_expires_at = EXCLUDED.refresh_expires_at, scopes = EXCLUDED.scopes';
const sql = `${INSERT_INTO}
    SELECT v.c1, v.c2, v.c3, (SELECT g.id FROM oauth_grants g WHERE g.grant_hash = v.c4), v.c4, v.c5, v.c6, v.c7, v.c8, v.c9, v.c10,
      v.c11, v.c12, v.c13, v.c14, v.c15, v.c16, v.c17
    FROM unnest(${arrays}) AS v(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17)
    ${conflict}`;
const sqlRun = process.env.SQL ?? sql;
const client = new pg.Client({ connectionString: d.url });
await client.connect();
await client.query('SET search_path TO identity, public');
for (const stmt of (process.env.PREP ?? '').split(';').filter(Boolean)) await client.query(stmt);
const pid = (await client.query('select pg_backend_pid() as p')).rows[0].p;
const cpu = () => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
const B = Number(process.env.B ?? 8);
const payload = 'v1.' + randomBytes(300).toString('base64url');
const row = () => ['client_credentials', randomBytes(32).toString('hex'), null, null, '["events:write"]', '[]', null, new Date(Date.now() + 900e3), null, '127.0.0.1', 'bench', null, principalId, 'c1', appId, payload, null];
const run = async (n: number) => { for (let i = 0; i < n; i++) { const rows = Array.from({ length: B }, row); await client.query({ name: 's', text: sqlRun, values: process.env.SQL ? [] : COLUMN_TYPES.map((_, c) => rows.map((r) => r[c])) }); } };
await run(2000 / B);
const results: number[] = [];
for (let k = 0; k < 5; k++) { const c0 = cpu(); const t0 = performance.now(); await run(8000 / B); results.push((cpu() - c0) / 8000); }
results.sort((a, b) => a - b);
console.log(`B=${B} ${process.env.LABEL ?? ''}: PostgreSQL backend CPU µs/row: ${results.map((x) => x.toFixed(1)).join(' ')} (median ${results[2]!.toFixed(1)})`);
await client.end();
await d.drop();
