import { randomBytes } from 'node:crypto';
import type { App } from '../../src/kit/app.ts';
import { buildIdentityApp, identityRuntime, type IdentityRuntime } from '../../src/identity/app.ts';
import { loadIdentityConfig } from '../../src/identity/config.ts';
import { createApp as createOAuthApp, createSecret } from '../../src/identity/apps/store.ts';
import { createHuman } from '../../src/identity/principals/store.ts';
import type { NewApp } from '../../src/identity/apps/store.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';
import { freePort, onFreePort } from '../support/free-port.ts';

/** A port free right now, for a test that must give others a server's URL before it starts (see onFreePort). */
export { freePort };

export interface Server {
  app: App;
  issuer: string;
  runtime: IdentityRuntime;
  database: FreshDatabase;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
  /** Registers an app straight in the store; returns its client_id and (for confidential apps) a secret. */
  registerApp(
    input: NewApp,
  ): Promise<{ id: string; clientId: string; secret: string | undefined; principalId: string }>;
  createHuman(email: string, password: string, admin?: boolean): Promise<string>;
}

/**
 * A real identity server on localhost over HTTP, on its own fresh PostgreSQL database. `options.port`
 * fixes the port (to configure others with its URL first); `options.host` names it otherwise than
 * localhost (a second server on 127.0.0.1 keeps its cookies apart from the first in a browser).
 */
export async function startServer(
  label: string,
  extraEnv: NodeJS.ProcessEnv = {},
  options: { port?: number; host?: string } = {},
): Promise<Server> {
  const database = await freshPostgres(label);
  const dir = tempDir('identity-test-');
  const secretKey = randomBytes(32).toString('hex');
  // The issuer names the port, so it is chosen before the app is built (again if another process took it meanwhile).
  const start = async (port: number) => {
    const issuer = `http://${options.host ?? 'localhost'}:${port}`;
    const env: NodeJS.ProcessEnv = {
      IDENTITY_DATABASE_URL: database.url,
      IDENTITY_ISSUER: issuer,
      IDENTITY_PORT: String(port),
      DATA_DIR: dir.path,
      LOG_LEVEL: 'silent',
      PLATFORM_SECRET_KEY: secretKey,
      ...extraEnv,
    };
    const app = await buildIdentityApp(loadIdentityConfig(env));
    try {
      await app.listen({ host: '127.0.0.1', port });
    } catch (err) {
      await app.close();
      throw err;
    }
    return { app, issuer, env };
  };
  const { app, issuer, env } = options.port ? await start(options.port) : await onFreePort(start);
  const runtime = identityRuntime(app);
  return {
    app,
    issuer,
    runtime,
    database,
    env,
    async close() {
      await app.close();
      await database.drop();
      dir.remove();
    },
    async registerApp(input) {
      const a = await createOAuthApp(runtime.db, input, runtime.scopes);
      const secret = a.public ? undefined : (await createSecret(runtime.db, a.id)).secret;
      return { id: a.id, clientId: a.clientId, secret, principalId: a.principalId };
    },
    async createHuman(email, password, admin = false) {
      return (await createHuman(runtime.db, { email, password, isPlatformAdmin: admin, emailVerified: true })).id;
    },
  };
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

export async function form(
  url: string,
  body: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/**
 * A caller of identity's management API (`/api/v1`) with a bearer token, both read at each call (tests set them in
 * `before`): answers the status and the JSON body, none for a 204.
 */
export function managementApi(issuer: () => string, token: () => string) {
  return async (
    path: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<{ status: number; body: any }> => {
    const r = await fetch(`${issuer()}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token()}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
    return { status: r.status, body: r.status === 204 ? undefined : await r.json() };
  };
}
