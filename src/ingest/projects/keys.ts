import { apiKeyTable, type ApiKeyRecord } from '../../kit/api-keys/table.ts';

export interface IngestApiKeyRecord extends ApiKeyRecord {
  project_id: string;
}

/** A project's keys for `POST /v1/events`, `isk_<43 characters>` (src/kit/api-keys/), in ingest's `api_keys`. */
export const INGEST_KEYS = apiKeyTable<IngestApiKeyRecord>({
  prefix: 'isk_',
  owner: { column: 'project_id', table: 'projects' },
});
