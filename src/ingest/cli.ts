import type { CommandIO } from '../kit/service.ts';
import type { IngestConfig } from './config.ts';

export const INGEST_USAGE = [
  'projects create NAME [--id ID]   create a project',
  'projects list                    list projects',
  'keys create PROJECT [--name N]   create an API key (shown once)',
  'keys list PROJECT                list a project\'s API keys',
  'keys revoke KEY_ID               revoke an API key',
];

export async function ingestCommand(args: string[], _config: IngestConfig, io: CommandIO): Promise<number> {
  io.err(`unknown ingest command "${args.join(' ')}"; run "platform help"`);
  return 2;
}
