import { Type } from 'typebox';

/** The admin API's projects and keys as answered (admin/routes.ts); the console reads their types (src/ingest/api-types.ts). */
export const Project = Type.Object({ id: Type.String(), name: Type.String(), created_at: Type.String() });
export const ApiKey = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  created_at: Type.String(),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
});
export const CreatedApiKey = Type.Object({
  ...ApiKey.properties,
  key: Type.String({ description: 'The key itself: shown only in this answer, stored only as a hash' }),
});
export const ProjectOrigins = Type.Object({
  project_id: Type.String(),
  origins: Type.Array(Type.String(), { description: 'Allowed for this project' }),
  service_origins: Type.Array(Type.String(), {
    description: 'INGEST_ALLOWED_ORIGINS: allowed for every project (`*`: any origin)',
  }),
});
export const ProjectInternalUsers = Type.Object({
  project_id: Type.String(),
  users: Type.Array(Type.String(), {
    description:
      'The `user.id`s left out of reads asking `internal=exclude`: exact (`ann@example.com`), or a prefix ending in `*` (`test-*`)',
  }),
});
