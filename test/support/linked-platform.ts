import { randomBytes } from 'node:crypto';
import type { App } from '../../src/kit/app.ts';
import { services } from '../../src/services.ts';
import { linkServices } from '../../src/platform/links.ts';
import { freshPostgres, type FreshDatabase } from './postgres.ts';
import { freePort } from './free-port.ts';
import { tempDir } from './tmp.ts';

export interface LinkedPlatform {
  /** Each service's base URL (`http://localhost:<port>`), by name. */
  url: Record<string, string>;
  app: Record<string, App>;
  /** What `platform start` printed as `linked` lines. */
  wired: string[];
  close(): Promise<void>;
}

/**
 * The services `platform start` would run together, in this process: the same registry, the same links
 * (src/platform/links.ts), each built in the registry's order and listening on localhost, on one fresh PostgreSQL
 * database (each service in its own schema). `env` adds to or overrides the defaults.
 */
export async function startLinkedPlatform(
  label: string,
  names: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<LinkedPlatform> {
  const database: FreshDatabase = await freshPostgres(label);
  const dir = tempDir(`${label}-`);
  const ports = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await freePort()] as const)));
  const url = Object.fromEntries(names.map((n) => [n, `http://localhost:${ports[n]}`]));
  const fullEnv: NodeJS.ProcessEnv = {
    DATABASE_URL: database.url,
    DATA_DIR: dir.path,
    LOG_LEVEL: 'silent',
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    IDENTITY_ISSUER: url.identity,
    DASHBOARD_PLATFORM_DATA: 'false',
    AUDIT_CONCURRENCY: '0',
    ...Object.fromEntries(names.map((n) => [`${n.toUpperCase()}_PORT`, String(ports[n])])),
    ...env,
  };
  const chosen = services.filter((s) => names.includes(s.name));
  const loaded = chosen.map((s) => ({ name: s.name, loaded: s.load(fullEnv) }));
  const links = linkServices(loaded);
  const app: Record<string, App> = {};
  const close = async () => {
    for (const a of Object.values(app).reverse()) await a.close();
    await database.drop();
    dir.remove();
  };
  try {
    for (const { name, loaded: l } of loaded) {
      const built = await l.buildApp();
      app[name] = built;
      links.built(name, built);
      await built.listen({ host: '127.0.0.1', port: l.address.port });
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { url, app, wired: links.wired, close };
}
