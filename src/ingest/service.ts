import { defineService } from '../kit/service.ts';
import { buildIngestApp, INGEST_MIGRATIONS, openIngestDatabase } from './app.ts';
import { ingestCommand, INGEST_USAGE } from './cli.ts';
import { INGEST_DEFAULT_PORT, ingestSpec, loadIngestConfig } from './config.ts';

export const ingestService = defineService({
  name: 'ingest',
  description: 'telemetry event ingestion, storage and forwarding',
  defaultPort: INGEST_DEFAULT_PORT,
  spec: ingestSpec,
  loadConfig: loadIngestConfig,
  address: (config) => ({ host: config.host, port: config.port }),
  buildApp: buildIngestApp,
  openDatabase: openIngestDatabase,
  migrations: INGEST_MIGRATIONS,
  command: ingestCommand,
  usage: INGEST_USAGE,
});
