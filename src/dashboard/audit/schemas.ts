import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { ListQuery } from '../schemas.ts';

export const AuditRecord = Type.Object({
  id: Type.Integer(),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  action: Type.String(),
  targetType: Type.String(),
  targetId: Type.Union([Type.String(), Type.Null()]),
  userName: Type.Union([Type.String(), Type.Null()], {
    description: "the acting user's name now; null for the operator's command line and the service itself",
  }),
  targetName: Type.Union([Type.String(), Type.Null()], {
    description:
      "the target's name now (a dashboard's title, a source's, user's or tenant's name); for a target since deleted, the title or slug its record kept; null when neither is known",
  }),
  targetExists: Type.Boolean({ description: 'whether the target is still there (false once a dashboard is deleted)' }),
  details: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
});

export const AuditQuery = Type.Object({
  ...ListQuery.properties,
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_.]+$' })),
  targetType: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_]+$' })),
  userId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  since: Type.Optional({ ...Timestamp, description: 'records at or after this time (ISO 8601 with a zone)' }),
  until: Type.Optional({ ...Timestamp, description: 'records before this time (ISO 8601 with a zone)' }),
});
