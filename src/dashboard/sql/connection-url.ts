import type { DataSourceType } from './driver.ts';

const SCHEMES: Record<DataSourceType, readonly string[]> = {
  postgres: ['postgres:', 'postgresql:'],
  mysql: ['mysql:', 'mariadb:'],
};

/** Why a connection URL cannot be used for a data source of `type`, or undefined when it can. Never echoes the URL. */
export function connectionUrlProblem(type: DataSourceType, raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (!SCHEMES[type].includes(u.protocol))
    return `must start with ${SCHEMES[type].map((s) => `${s}//`).join(' or ')} for a ${type} data source`;
  if (!u.hostname) return 'must name a host';
  return undefined;
}

export interface ParsedConnectionUrl {
  host: string;
  port: number | undefined;
  user: string;
  password: string;
  database: string;
  /** Query-string settings other than ones the service decides itself. */
  params: URLSearchParams;
}

export function parseConnectionUrl(raw: string): ParsedConnectionUrl {
  const u = new URL(raw);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : undefined,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')),
    params: u.searchParams,
  };
}

/** Removes the URL, its password (as written and decoded) and its user-info from a driver's message. */
export function scrubSecrets(message: string, url: string): string {
  const secrets = new Set<string>([url]);
  try {
    const u = new URL(url);
    if (u.password) {
      secrets.add(u.password);
      secrets.add(decodeURIComponent(u.password));
    }
    if (u.username && u.password) secrets.add(`${u.username}:${u.password}`);
  } catch {
    // An unparseable URL is still removed whole.
  }
  let out = message;
  for (const s of [...secrets].sort((a, b) => b.length - a.length))
    if (s.length > 0) out = out.split(s).join('[redacted]');
  return out;
}
