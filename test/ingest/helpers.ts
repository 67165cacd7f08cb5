import pg from 'pg';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/kit/app.ts';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface IngestHarness {
  app: App;
  database: FreshDatabase;
  /** A plain connection to the test database, for checking what was stored; closed by `close()`. */
  sql: pg.Client;
  /** Creates a project through the admin API and a key for it. */
  project(id?: string): Promise<{ projectId: string; key: string; keyId: string }>;
  admin(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startIngest(env: Record<string, string> = {}, label = 'ingest'): Promise<IngestHarness> {
  const database = await freshPostgres(label);
  const dataDir = tempDir();
  const config = loadIngestConfig({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir.path,
    LOG_LEVEL: 'silent',
    INGEST_ADMIN_TOKEN: ADMIN_TOKEN,
    ...env,
  });
  // A start that fails (the test expects it or not) leaves no database or folder behind.
  const app = await buildIngestApp(config).catch(async (err: unknown) => {
    await database.drop();
    dataDir.remove();
    throw err;
  });
  const sql = new pg.Client({ connectionString: database.url });
  // Outage tests terminate every connection to the database, this one included.
  sql.on('error', () => {});
  await sql.connect();
  const admin: IngestHarness['admin'] = (method, url, payload) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  return {
    app,
    database,
    sql,
    admin,
    async project(id = `p_${randomUUID().slice(0, 8)}`) {
      const created = await admin('POST', '/api/v1/projects', { name: `project ${id}`, id });
      if (created.statusCode !== 201) throw new Error(`project: ${created.statusCode} ${created.body}`);
      const key = await admin('POST', `/api/v1/projects/${id}/keys`, { name: 'test' });
      if (key.statusCode !== 201) throw new Error(`key: ${key.statusCode} ${key.body}`);
      return { projectId: id, key: key.json().key, keyId: key.json().id };
    },
    async close() {
      await sql.end().catch(() => {});
      await app.close();
      await database.drop();
      dataDir.remove();
    },
  };
}

let sequence = 0;

/** A realistic valid event of the contract, with overrides. */
export function makeEvent(projectId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  sequence++;
  return {
    event_id: randomUUID(),
    project_id: projectId,
    'session.id': 'sess-1',
    'event.type': 'ui.click',
    'event.timestamp': '2025-03-04T10:11:12.345Z',
    'event.sequence': sequence,
    'page.path': '/checkout',
    'ui.component.name': 'PayButton',
    metadata: { plan: 'pro' },
    ...overrides,
  };
}
