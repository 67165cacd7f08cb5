import { readFile } from 'node:fs/promises';
import type { Database } from '../../kit/db.ts';
import { UsageError, flag, str, strs, type Command, type CommandContext } from '../../kit/cli-runner.ts';
import { createPrincipal } from '../admin/new-principal.ts';
import { findHumanByEmail, findPrincipal, type PrincipalView } from '../principals/view.ts';
import { createKeypair, type CredentialView } from '../credentials/store.ts';
import { recordAsRequest } from '../admin-log/command-record.ts';
import { KEY_ALGORITHMS, type KeyAlgorithm } from '../oidc/protocol.ts';
import { allPersonAgents } from '../delegation/agents-view.ts';

type WithDatabase = <T>(fn: (db: Database) => Promise<T>) => Promise<T>;

const words = (values: string[] | undefined) => values?.flatMap((s) => s.split(/[ ,]+/).filter(Boolean));

async function personOf(db: Database, who: string): Promise<PrincipalView> {
  const person = who.includes('@') ? await findHumanByEmail(db, who) : await findPrincipal(db, who);
  if (!person) throw new UsageError(`--for ${who}: no such person (an email or a principal id)`);
  return person;
}

type Values = CommandContext['values'];

/** `platform identity agents ...`: register agents, and read a person's agents with their approvals and live tokens. */
export function agentCommands(withDatabase: WithDatabase, knownScopes: readonly string[]): Command[] {
  return [createAgentCommand(withDatabase, knownScopes), listAgentsCommand(withDatabase)];
}

function createAgentCommand(withDatabase: WithDatabase, knownScopes: readonly string[]): Command {
  return {
    path: ['agents', 'create'],
    synopsis:
      '--name NAME --model MODEL_ID [--version V] [--display-name TEXT] [--for PERSON] [--scope S ...] [--capability-scope S ...] [--can-delegate] [--audience URL ...] [--max-lifetime SECONDS] [--no-confirmation] [--dpop] [--public-key FILE --key-id KID [--key-algorithm ES256|RS256]]',
    summary: 'register an agent principal (and its key pair) that may act for people through token exchange',
    details: [
      '--name              unique name, its identifier',
      '--model             the model it runs (model_id), shown to the person who approves it',
      '--for               the one person it may act for (email or principal id); otherwise any person who approves it',
      '--scope             its allowed_scopes (repeatable, or space/comma separated)',
      '--capability-scope  capability_constraints.scopes: the most it may hold for anyone',
      '--can-delegate      capability_constraints.can_delegate: its tokens may be exchanged again by a sub-agent',
      '--audience          resource_constraints.audiences: the resource servers its tokens may name (repeatable)',
      '--max-lifetime      max_token_lifetime in seconds (default 3600)',
      '--no-confirmation   requires_confirmation false: no approval by the person before its first exchange',
      '--dpop              its delegated tokens must be DPoP-bound',
      '--public-key        a PEM public key file registered as its key pair credential (with --key-id)',
      'recorded in the change log (GET /api/v1/admin-log) with the actor "command": the agent and its key pair',
    ],
    options: {
      name: { type: 'string' },
      model: { type: 'string' },
      version: { type: 'string' },
      'display-name': { type: 'string' },
      for: { type: 'string' },
      scope: { type: 'string', multiple: true },
      'capability-scope': { type: 'string', multiple: true },
      'can-delegate': { type: 'boolean' },
      audience: { type: 'string', multiple: true },
      'max-lifetime': { type: 'string' },
      'no-confirmation': { type: 'boolean' },
      dpop: { type: 'boolean' },
      'public-key': { type: 'string' },
      'key-id': { type: 'string' },
      'key-algorithm': { type: 'string' },
    },
    required: ['name', 'model'],
    paths: ['public-key'],
    run: async ({ values, result }) => {
      const input = await agentInput(values, knownScopes);
      return withDatabase(async (db) => {
        const person = str(values, 'for') ? await personOf(db, str(values, 'for')!) : undefined;
        // What POST /api/v1/principals would be sent for the same agent, created by the function that route calls.
        const body = {
          type: 'agent' as const,
          name: str(values, 'name')!,
          display_name: str(values, 'display-name'),
          model_id: str(values, 'model')!,
          version: str(values, 'version'),
          allowed_scopes: input.scopes,
          capability_constraints: {
            ...(input.capabilityScopes ? { scopes: input.capabilityScopes } : {}),
            can_delegate: flag(values, 'can-delegate'),
          },
          resource_constraints: strs(values, 'audience') ? { audiences: strs(values, 'audience') } : {},
          max_token_lifetime: input.lifetime ? Number(input.lifetime) : undefined,
          requires_confirmation: !flag(values, 'no-confirmation'),
          delegating_principal_id: person?.id,
          dpop_required: flag(values, 'dpop'),
        };
        let key: CredentialView | undefined;
        // The agent, its key pair and their records are one transaction: a key refused leaves no agent behind.
        const agent = await createPrincipal({ db, scopes: knownScopes }, body, async (tx, made) => {
          await recordAsRequest(tx, { method: 'POST', route: '/principals', body, answer: { id: made.id } });
          if (!input.publicKey) return;
          key = await createKeypair(tx, made.id, {
            publicKey: input.publicKey,
            algorithm: input.algorithm,
            keyId: str(values, 'key-id'),
          });
          await recordAsRequest(tx, {
            method: 'POST',
            route: '/principals/:id/credentials',
            params: { id: made.id },
            body: {
              type: 'keypair',
              public_key: input.publicKey,
              key_algorithm: input.algorithm,
              key_id: str(values, 'key-id'),
            },
            answer: { id: key.id },
          });
        });
        const { json, lines } = agentResult(agent, key, person);
        result(json, lines);
      });
    },
  };
}

/** The command's options checked before the database is opened: lifetime, key algorithm and file, known scopes. */
async function agentInput(values: Values, knownScopes: readonly string[]) {
  const lifetime = str(values, 'max-lifetime');
  if (lifetime !== undefined && !/^[1-9][0-9]{0,4}$/.test(lifetime))
    throw new UsageError('--max-lifetime must be a whole number of seconds (1 to 86400)');
  if (lifetime !== undefined && Number(lifetime) > 86_400)
    throw new UsageError('--max-lifetime must be at most 86400 seconds');
  const algorithm = str(values, 'key-algorithm') ?? 'ES256';
  if (!KEY_ALGORITHMS.includes(algorithm as KeyAlgorithm))
    throw new UsageError(`--key-algorithm must be one of ${KEY_ALGORITHMS.join(', ')}`);
  const keyFile = str(values, 'public-key');
  if (keyFile && !str(values, 'key-id'))
    throw new UsageError('--public-key needs --key-id (the kid its assertions name)');
  const publicKey = keyFile
    ? await readFile(keyFile, 'utf8').catch(() => {
        throw new UsageError(`--public-key ${keyFile}: cannot read the file`);
      })
    : undefined;
  const scopes = words(strs(values, 'scope'));
  const capabilityScopes = words(strs(values, 'capability-scope'));
  const unknown = [...(scopes ?? []), ...(capabilityScopes ?? [])].filter((s) => !knownScopes.includes(s));
  if (unknown.length) throw new UsageError(`unknown scope ${unknown.join(', ')}; known: ${knownScopes.join(', ')}`);
  return { lifetime, algorithm: algorithm as KeyAlgorithm, publicKey, scopes, capabilityScopes };
}

/** What `agents create` prints: the agent (JSON with --json) or a few lines. */
function agentResult(
  agent: PrincipalView,
  key: { key_id: string | null; id: string; key_algorithm: string | null } | undefined,
  person: PrincipalView | undefined,
): { json: Record<string, unknown>; lines: string[] } {
  const a = agent.agent!;
  return {
    json: {
      id: agent.id,
      identifier: agent.identifier,
      model_id: a.modelId,
      version: a.version,
      allowed_scopes: agent.allowedScopes,
      capability_constraints: a.capabilityConstraints,
      resource_constraints: a.resourceConstraints,
      max_token_lifetime: a.maxTokenLifetime,
      requires_confirmation: a.requiresConfirmation,
      delegating_principal_id: a.delegatingPrincipalId,
      dpop_required: a.dpopRequired,
      ...(key ? { key_id: key.key_id, credential_id: key.id } : {}),
    },
    lines: [
      `agent ${agent.identifier} (principal ${agent.id})  model: ${a.modelId}${a.version ? ` ${a.version}` : ''}`,
      `scopes: ${agent.allowedScopes.join(' ') || '(none)'}  max lifetime: ${a.maxTokenLifetime} s  ${a.requiresConfirmation ? "needs the person's approval" : 'no approval needed'}${a.dpopRequired ? '  DPoP required' : ''}`,
      ...(person ? [`acts only for ${person.identifier}`] : []),
      ...(key ? [`key pair ${key.key_id} (${key.key_algorithm}) registered`] : []),
    ],
  };
}

function listAgentsCommand(withDatabase: WithDatabase): Command {
  return {
    path: ['agents', 'list'],
    synopsis: '--for PERSON',
    summary: "a person's agents: each with its approval and the live tokens it holds for them",
    options: { for: { type: 'string' } },
    required: ['for'],
    run: ({ values, result }) =>
      withDatabase(async (db) => {
        const person = await personOf(db, str(values, 'for')!);
        const items = await allPersonAgents(db, person.id);
        result(
          { person_id: person.id, items },
          items.length
            ? items.map(
                (x) =>
                  `${x.agent.identifier} (${x.agent.id})  model: ${x.agent.agent?.model_id ?? '-'}  approval: ${x.approval?.status ?? 'none'}${x.approval?.scopes.length ? ` [${x.approval.scopes.join(' ')}]` : ''}  live tokens: ${x.live_tokens.length}`,
              )
            : [`no agents act for ${person.identifier}`],
        );
      }),
  };
}
