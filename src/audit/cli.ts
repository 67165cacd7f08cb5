import { parseArgs } from 'node:util';
import { migrate } from '../kit/migrations.ts';
import type { CommandIO } from '../kit/service.ts';
import { AUDIT_MIGRATIONS, openAuditDatabase } from './app.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './auth/keys.ts';
import type { AuditServiceConfig } from './config.ts';

export const AUDIT_USAGE = [
  'keys create [--name NAME]   create an API key for the audit API (shown once)',
  'keys list                   list API keys (never the keys themselves)',
  'keys revoke KEY_ID          revoke an API key',
];

/** `platform audit keys ...`: API keys straight against the service's database. */
export async function auditCommand(args: string[], config: AuditServiceConfig, io: CommandIO): Promise<number> {
  const [group, action, ...rest] = args;
  if (group !== 'keys' || !['create', 'list', 'revoke'].includes(action ?? '')) {
    io.err(`unknown command "audit ${args.join(' ')}"; usage:\n${AUDIT_USAGE.map((u) => `  platform audit ${u}`).join('\n')}`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { name: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`platform audit keys ${action}: ${(err as Error).message}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (action === 'revoke' ? positionals.length !== 1 : positionals.length !== 0) {
    io.err(action === 'revoke' ? 'platform audit keys revoke: expects exactly one KEY_ID' : `platform audit keys ${action}: takes no positional arguments`);
    return 2;
  }
  if (values.name !== undefined && (values.name.length > 200 || values.name.includes('\0'))) {
    io.err('platform audit keys create: --name must be at most 200 characters');
    return 2;
  }
  const db = await openAuditDatabase(config);
  try {
    await migrate(db, AUDIT_MIGRATIONS);
    if (action === 'create') {
      const { key, record } = await createApiKey(db, values.name ?? '');
      io.out(`created key ${record.id}${record.name ? ` (${record.name})` : ''}`);
      io.out(key);
      io.err('store this key now: it is not kept and cannot be shown again');
    } else if (action === 'list') {
      for (const k of await listApiKeys(db)) io.out(`${k.id}\t${k.prefix}…\t${k.name || '-'}\t${k.created_at}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`);
    } else {
      const record = await revokeApiKey(db, positionals[0]!);
      if (!record) {
        io.err(`platform audit keys revoke: no key ${positionals[0]}`);
        return 1;
      }
      io.out(`revoked key ${record.id}`);
    }
    return 0;
  } finally {
    await db.close();
  }
}
