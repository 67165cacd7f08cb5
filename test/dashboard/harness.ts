import { randomBytes } from 'node:crypto';
import { freePort, onFreePort } from '../support/free-port.ts';
import type { App } from '../../src/kit/app.ts';
import { buildDashboardApp } from '../../src/dashboard/app.ts';
import { dashboardCommand } from '../../src/dashboard/cli.ts';
import { loadDashboardConfig, type DashboardConfig } from '../../src/dashboard/config.ts';
import type { Role } from '../../src/dashboard/auth/roles.ts';
import type { Plan } from '../../src/dashboard/auth/user.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  tokenType: 'Bearer';
}

export interface SignedIn extends TokenPair {
  userId: number;
  tenantId: number;
  tenant: string;
  email: string;
  role: Role;
  /** `{ authorization: 'Bearer …' }` for requests as this user. */
  headers: Record<string, string>;
}

export interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface DashboardServer {
  app: App;
  /** `http://localhost:<port>` (DASHBOARD_PUBLIC_URL): the service listens on an ephemeral port of 127.0.0.1 (login callbacks need a real address). */
  url: string;
  config: DashboardConfig;
  env: NodeJS.ProcessEnv;
  database: FreshDatabase;
  /** Runs `platform dashboard ...` against this service's database, as an operator would. */
  cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }>;
  /** A tenant made through the CLI (plan enterprise unless given, so tests are not rate limited by accident). */
  createTenant(slug: string, plan?: Plan): Promise<{ id: number; slug: string }>;
  /** A user made through the CLI and signed in through the CLI's token command: a real session and token pair. */
  signIn(options: { tenant: string; role: Role; email?: string; name?: string }): Promise<SignedIn>;
  /** A further token pair (a new session) for an existing user. */
  token(tenant: string, email: string): Promise<TokenPair>;
  /** A request through `app.inject`, JSON in and out. */
  request(
    method: string,
    path: string,
    options?: {
      as?: { headers: Record<string, string> } | undefined;
      body?: unknown;
      headers?: Record<string, string>;
    },
  ): Promise<Answer>;
  close(): Promise<void>;
}

let counter = 0;

/** A port free right now, for a test that must give another service the dashboard's URL before the dashboard starts. */
export { freePort };

/**
 * The dashboard service on a fresh PostgreSQL database, listening on 127.0.0.1 on an ephemeral port
 * (`DASHBOARD_PORT` in `extraEnv` to choose it, e.g. from freePort() when a provider must know the callback first).
 */
export async function startDashboard(label: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<DashboardServer> {
  const database = await freshPostgres(label);
  const dir = tempDir('dashboard-test-');
  const secrets = {
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    DASHBOARD_JWT_SECRET: randomBytes(32).toString('base64url'),
  };
  // The public URL names the port, so it is chosen before the app is built (again if another process took it meanwhile).
  const start = async (port: number) => {
    const env: NodeJS.ProcessEnv = {
      DASHBOARD_DATABASE_URL: database.url,
      DASHBOARD_PORT: String(port),
      DASHBOARD_PUBLIC_URL: `http://localhost:${port}`,
      DATA_DIR: dir.path,
      LOG_LEVEL: 'silent',
      ...secrets,
      ...extraEnv,
    };
    const config = loadDashboardConfig(env);
    const app = await buildDashboardApp(config);
    try {
      await app.listen({ host: '127.0.0.1', port });
    } catch (err) {
      await app.close();
      throw err;
    }
    return { app, config, env, port };
  };
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = extraEnv.DASHBOARD_PORT ? await start(Number(extraEnv.DASHBOARD_PORT)) : await onFreePort(start);
  } catch (err) {
    await database.drop();
    dir.remove();
    throw err;
  }
  const { app, config, env, port } = started;
  const url = `http://localhost:${port}`;

  const cli = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await dashboardCommand(args, config, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };
  const must = async (args: string[]) => {
    const r = await cli(args);
    if (r.code !== 0) throw new Error(`platform dashboard ${args.join(' ')} failed: ${r.err.join('\n')}`);
    return r.out;
  };
  const tenants = new Map<string, number>();
  const createTenant = async (slug: string, plan: Plan = 'enterprise') => {
    const [line] = await must(['tenants', 'create', '--slug', slug, '--name', `Tenant ${slug}`, '--plan', plan]);
    const id = Number(/^tenant (\d+) /.exec(line!)![1]);
    tenants.set(slug, id);
    return { id, slug };
  };
  const token = async (tenant: string, email: string): Promise<TokenPair> =>
    JSON.parse((await must(['token', '--tenant', tenant, '--email', email]))[0]!);
  return {
    app,
    url,
    config,
    env,
    database,
    cli,
    createTenant,
    token,
    async signIn({ tenant, role, email, name }) {
      if (!tenants.has(tenant)) await createTenant(tenant);
      const address = email ?? `${role}-${++counter}-${randomBytes(3).toString('hex')}@${tenant}.example`;
      const [line] = await must([
        'users',
        'create',
        '--tenant',
        tenant,
        '--email',
        address,
        '--name',
        name ?? `${role} ${counter}`,
        '--role',
        role,
      ]);
      const userId = Number(/^user (\d+) /.exec(line!)![1]);
      const pair = await token(tenant, address);
      return {
        ...pair,
        userId,
        tenantId: tenants.get(tenant)!,
        tenant,
        email: address,
        role,
        headers: { authorization: `Bearer ${pair.accessToken}` },
      };
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.as?.headers, ...options.headers };
      const res = await app.inject({
        method: method as 'GET',
        url: path,
        headers: options.body !== undefined ? { 'content-type': 'application/json', ...headers } : headers,
        ...(options.body !== undefined
          ? { payload: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
          : {}),
      });
      let body: unknown;
      try {
        body = res.body ? JSON.parse(res.body) : undefined;
      } catch {
        body = res.body;
      }
      return { status: res.statusCode, body, headers: res.headers };
    },
    async close() {
      await app.close();
      await database.drop();
      dir.remove();
    },
  };
}
