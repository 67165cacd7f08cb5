import { CommandFailure, UsageError, flag, str, type Command, type CommandContext } from '../../kit/cli-runner.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import type { IdentityConfig } from '../config.ts';
import { consoleCatalog } from '../console/register.ts';
import { personWithRights, rightsOf, setConsoleRights, type RightHeld } from '../console/rights-store.ts';
import { DEFAULT_RIGHT_SCOPES, RIGHT_NAMES, type ConsoleRight, type RightName } from '../principals/console-rights.ts';
import { findHumanByEmail, findPrincipal, type PrincipalView } from '../principals/view.ts';
import { COMMAND } from '../admin-log/command-record.ts';
import type { WithDatabase } from './with-database.ts';

type Values = CommandContext['values'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WHO = '(--email EMAIL | --principal ID)';
const WHO_OPTIONS = { email: { type: 'string' }, principal: { type: 'string' } } as const;
const CATALOG_NOTE =
  "the rights are those identity knows with this configuration: all three when the command is run by a running `platform start` that linked the console; else identity's, and audits' or events' once IDENTITY_EXTRA_SCOPES names its scope";

/** A 404 or 409 of the rights store (no principal, not a person, the last admin) is a failure of the command (exit 1). */
const failed = (err: unknown): never => {
  throw err instanceof HttpError && (err.statusCode === 404 || err.statusCode === 409)
    ? new CommandFailure(err.message)
    : err;
};

async function personNamed(db: Database, values: Values): Promise<PrincipalView> {
  const email = str(values, 'email');
  const id = str(values, 'principal');
  if (Boolean(email) === Boolean(id)) throw new UsageError('name the person with --email or with --principal (one)');
  if (email) {
    const human = await findHumanByEmail(db, email);
    if (!human) throw new CommandFailure(`no person with the email ${email}`);
    return human;
  }
  if (!UUID.test(id!)) throw new UsageError(`--principal ${id} is not a principal id (a UUID)`);
  try {
    return personWithRights(await findPrincipal(db, id), id!);
  } catch (err) {
    return failed(err);
  }
}

/**
 * The rights `--rights` names, or none with `--none`. An empty `--rights` is refused rather than read as "none": a
 * script's unset variable (`--rights "$RIGHTS"`) must not take every right, the identity right included.
 */
function wantedRights(values: Values, catalog: readonly ConsoleRight[]): RightName[] {
  const given = str(values, 'rights');
  const none = flag(values, 'none');
  if (given !== undefined && none) throw new UsageError('--rights and --none cannot be combined');
  if (none) return [];
  if (given === undefined) throw new UsageError('--rights is required (or --none, to take every right)');
  const names = [...new Set(given.split(/[\s,]+/).filter(Boolean))];
  if (names.length === 0)
    throw new UsageError('--rights names no right: name them (identity,audits,events), or give --none for no right');
  const known = catalog.map((r) => r.name);
  for (const name of names) {
    if (known.includes(name as RightName)) continue;
    if (!(RIGHT_NAMES as readonly string[]).includes(name))
      throw new UsageError(`unknown right "${name}"; the rights here: ${known.join(', ')}`);
    throw new UsageError(
      `the ${name} right is not known here (the rights here: ${known.join(', ')}): identity started alone knows it once IDENTITY_EXTRA_SCOPES names its scope (${DEFAULT_RIGHT_SCOPES[name as RightName]}), and it knows every right while \`platform start\` runs it with the dashboard`,
    );
  }
  return names as RightName[];
}

function printRights(ctx: CommandContext, person: PrincipalView, rights: RightHeld[], headline: string): void {
  const held = rights.filter((r) => r.held).map((r) => r.name);
  ctx.result(
    {
      principal_id: person.id,
      email: person.human?.email ?? person.identifier,
      rights: rights.map((r) => ({ name: r.name, scope: r.scope, description: r.description, held: r.held })),
    },
    [
      `${person.identifier} (principal ${person.id}) ${headline} ${held.length ? held.join(', ') : 'no console right'}`,
      ...rights.map(
        (r) => `  ${r.name.padEnd(8)}  ${(r.held ? 'held' : 'not held').padEnd(8)}  scope ${r.scope}: ${r.description}`,
      ),
    ],
  );
}

/**
 * `platform identity console-rights show|set`: a person's console rights from a shell, for an operator without a
 * console that opens (an owner made before console rights existed, or an admin who took their own away). `set` goes
 * through the one rights store the API uses (the last-admin refusal, its lock, the change log), with the actor
 * `command`; the catalog is the one identity serves with the configuration the command runs with.
 */
export function consoleRightsCommands(withDatabase: WithDatabase, config: IdentityConfig): Command[] {
  return [
    {
      path: ['console-rights', 'show'],
      synopsis: WHO,
      summary: "a person's console rights: each right identity knows, held or not",
      details: [CATALOG_NOTE],
      options: WHO_OPTIONS,
      run: (ctx) =>
        withDatabase(async (db) => {
          const person = await personNamed(db, ctx.values);
          printRights(ctx, person, rightsOf(person, consoleCatalog(config)), 'holds');
        }),
    },
    {
      path: ['console-rights', 'set'],
      synopsis: `${WHO} (--rights RIGHT,... | --none)`,
      summary: "set a person's console rights to exactly these (identity, audits, events)",
      details: [
        '--rights: the rights the person holds afterwards, separated by commas (their other scopes stay); --none: no right',
        'identity also makes the person a platform admin, and taking it from the last active person holding it is refused (exit 1)',
        'recorded in the change log (GET /api/v1/admin-log) with the actor "command"',
        CATALOG_NOTE,
      ],
      options: { ...WHO_OPTIONS, rights: { type: 'string' }, none: { type: 'boolean' } },
      run: (ctx) => {
        const catalog = consoleCatalog(config);
        const wanted = wantedRights(ctx.values, catalog);
        return withDatabase(async (db) => {
          const person = await personNamed(db, ctx.values);
          const after = await setConsoleRights(db, {
            principalId: person.id,
            wanted,
            catalog,
            actor: COMMAND,
          }).catch(failed);
          printRights(ctx, person, after, 'now holds');
        });
      },
    },
  ];
}
