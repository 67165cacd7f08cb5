import { isDatabaseUnavailable } from './db.ts';

/**
 * A reason a service cannot start that the operator can fix (a port in use, an address that is not
 * this machine's, Redis or the database unreachable): printed as one line naming the cause, without a
 * stack trace, like a configuration error.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** Why `listen` failed, in the operator's terms; undefined for a failure that is not theirs to fix. */
export function listenProblem(err: unknown, service: string, host: string, port: number): StartupError | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${service} cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}`;
  const prefix = service.toUpperCase();
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(
        `${where}: the port is in use; stop what holds it or set ${prefix}_PORT to another port`,
        { cause: err },
      );
    case 'EACCES':
      return new StartupError(`${where}: permission denied (ports below 1024 need privileges); set ${prefix}_PORT`, {
        cause: err,
      });
    case 'EADDRNOTAVAIL':
      return new StartupError(
        `${where}: HOST ${host} is not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses`,
        { cause: err },
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new StartupError(`${where}: HOST ${host} does not resolve to an address`, { cause: err });
    default:
      return undefined;
  }
}

/** A failure of a command or a start that comes from the database being unreachable, as one line. */
export function databaseProblem(err: unknown): StartupError | undefined {
  if (!isDatabaseUnavailable(err)) return undefined;
  const message = (err as Error).message || String((err as { code?: string }).code ?? 'no answer');
  return new StartupError(
    `cannot use the database: ${message} (check DATABASE_URL or <SERVICE>_DATABASE_URL, and that PostgreSQL is running)`,
    { cause: err },
  );
}
