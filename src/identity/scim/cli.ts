import type { Database } from '../../kit/db.ts';
import { CommandFailure, UsageError, flag, str, type Command } from '../../kit/cli-runner.ts';
import { HttpError } from '../../kit/errors.ts';
import { recordAsRequest } from '../admin-log/command-record.ts';
import {
  createConnection,
  listConnections,
  revokeConnection,
  rotateToken,
  updateConnection,
  type ConnectionView,
} from './connections.ts';
import { SCIM_PREFIX } from './errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function connectionId(value: string | undefined): string {
  if (!value || !UUID.test(value)) throw new UsageError('CONNECTION_ID must be a SCIM connection id (a UUID)');
  return value;
}

/** The risk of adoption, in the help of the commands that set it. */
const ADOPT_HELP = [
  '--adopt-existing: a pushed email someone already signs in with links that person to the connection (then its to',
  "change and deactivate) instead of a 409; never a platform admin, a deactivated person or another connection's;",
  'off by default: turn it on for the first sync of people who signed up before the directory was connected',
];

/** A refusal of the store (no such connection, revoked already): the command ran and failed (exit 1). */
const failed = (err: unknown): never => {
  throw err instanceof HttpError ? new CommandFailure(err.message) : err;
};

/**
 * `platform identity scim …`: SCIM connections from a shell on the server, through the store the management API uses
 * (`/api/v1/scim-connections`), each change recorded in its transaction as that API's request is, with the actor
 * `command`, the token never. A token is printed once.
 */
export function scimCommands(
  withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>,
  issuer: string | undefined,
): Command[] {
  const baseUrl = `${(issuer ?? '').replace(/\/$/, '')}${SCIM_PREFIX}`;
  const out = (c: ConnectionView) => ({ ...c, base_url: baseUrl });
  const shown = (c: ConnectionView, token: string) => [
    `SCIM connection ${c.id} "${c.name}"`,
    `base URL: ${baseUrl}`,
    `token (shown once): ${token}`,
  ];
  const exports = (r: { connection?: { id?: string; base_url?: string }; token?: string }) => ({
    SCIM_CONNECTION_ID: r.connection?.id,
    SCIM_BASE_URL: r.connection?.base_url,
    SCIM_TOKEN: r.token,
  });
  return [
    {
      path: ['scim', 'create'],
      synopsis: '--name NAME [--adopt-existing]',
      summary: 'a SCIM connection for an enterprise directory (Okta, Entra ID); its token is shown once',
      details: [
        'give the directory the base URL and the token (Bearer); it provisions people under /scim/v2',
        ...ADOPT_HELP,
        'recorded in the change log (GET /api/v1/admin-log) with the actor "command", the token never',
      ],
      options: { name: { type: 'string' }, 'adopt-existing': { type: 'boolean' } },
      required: ['name'],
      exports,
      run: ({ values, result }) => {
        const name = str(values, 'name')!.trim();
        if (!name || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
        const adopt = flag(values, 'adopt-existing');
        return withDatabase(async (db) => {
          const { connection, token } = await createConnection(
            db,
            name,
            (tx, made) =>
              recordAsRequest(tx, {
                method: 'POST',
                route: '/scim-connections',
                body: { name, ...(adopt ? { adopt_existing: true } : {}) },
                answer: { id: made.id },
              }),
            adopt,
          );
          result({ connection: out(connection), token }, shown(connection, token));
        });
      },
    },
    {
      path: ['scim', 'list'],
      synopsis: '',
      summary: 'the SCIM connections (never their tokens)',
      run: ({ result }) =>
        withDatabase(async (db) => {
          const all = await listConnections(db, 1000, undefined);
          result(
            all.map(out),
            all.length
              ? all.map(
                  (c) =>
                    `${c.id}  ${c.name}  ${c.token_prefix}…  ${c.revoked_at ? `revoked ${c.revoked_at}` : 'live'}  people: ${c.people}  adopts existing: ${c.adopt_existing ? 'on' : 'off'}  last used: ${c.last_used_at ?? 'never'}`,
                )
              : ['no SCIM connections'],
          );
        }),
    },
    {
      path: ['scim', 'update'],
      synopsis: 'CONNECTION_ID [--name NAME] [--adopt-existing on|off]',
      summary: 'rename a connection, or turn its adoption of existing people on or off',
      details: [...ADOPT_HELP, 'recorded in the change log with the actor "command"'],
      positionals: { min: 1, max: 1 },
      options: { name: { type: 'string' }, 'adopt-existing': { type: 'string' } },
      run: ({ positionals, values, result }) => {
        const id = connectionId(positionals[0]);
        const name = str(values, 'name')?.trim();
        if (name !== undefined && (!name || name.length > 200))
          throw new UsageError('--name must be 1 to 200 characters');
        const setting = str(values, 'adopt-existing');
        if (setting !== undefined && setting !== 'on' && setting !== 'off')
          throw new UsageError('--adopt-existing takes on or off');
        if (name === undefined && setting === undefined) throw new UsageError('give --name or --adopt-existing');
        const body = {
          ...(name !== undefined ? { name } : {}),
          ...(setting !== undefined ? { adopt_existing: setting === 'on' } : {}),
        };
        return withDatabase(async (db) => {
          const c = await updateConnection(db, id, { name, adoptExisting: body.adopt_existing }, (tx) =>
            recordAsRequest(tx, { method: 'PATCH', route: '/scim-connections/:id', params: { id }, body }),
          ).catch(failed);
          result(out(c), [
            `SCIM connection ${c.id} "${c.name}": adopts existing people: ${c.adopt_existing ? 'on' : 'off'}`,
          ]);
        });
      },
    },
    {
      path: ['scim', 'rotate'],
      synopsis: 'CONNECTION_ID',
      summary: 'a new token for a connection (shown once); the previous one stops at once',
      details: ['recorded in the change log with the actor "command", the token never'],
      positionals: { min: 1, max: 1 },
      exports,
      run: ({ positionals, result }) => {
        const id = connectionId(positionals[0]);
        return withDatabase(async (db) => {
          const { connection, token } = await rotateToken(db, id, (tx) =>
            recordAsRequest(tx, { method: 'POST', route: '/scim-connections/:id/rotate', params: { id } }),
          ).catch(failed);
          result({ connection: out(connection), token }, shown(connection, token));
        });
      },
    },
    {
      path: ['scim', 'revoke'],
      synopsis: 'CONNECTION_ID',
      summary: "revoke a connection's token: the directory's next request is refused",
      details: ['the people it provisioned stay as they are; recorded in the change log with the actor "command"'],
      positionals: { min: 1, max: 1 },
      run: ({ positionals, result }) => {
        const id = connectionId(positionals[0]);
        return withDatabase(async (db) => {
          const c = await revokeConnection(db, id, (tx) =>
            recordAsRequest(tx, { method: 'POST', route: '/scim-connections/:id/revoke', params: { id } }),
          ).catch(failed);
          result(out(c), [`SCIM connection ${c.id} "${c.name}": token revoked ${c.revoked_at}`]);
        });
      },
    },
  ];
}
