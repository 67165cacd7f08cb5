import { Type } from 'typebox';
import { errorResponses } from '../../kit/errors.ts';
import { Timestamp } from '../../kit/schemas.ts';
import { SecretName } from '../session/schema.ts';

/** A secret as every endpoint answers it: never its value. */
export const SecretSummary = Type.Object({ name: Type.String(), createdAt: Timestamp, updatedAt: Timestamp });
export const SecretParams = Type.Object({ name: SecretName });
export const SecretBody = Type.Object(
  {
    value: Type.String({
      minLength: 6,
      maxLength: 4096,
      description:
        'The secret (6 to 4096 characters: a shorter one would be taken for ordinary text when reports are scrubbed of it)',
    }),
  },
  { additionalProperties: false },
);
export const secretErrors = errorResponses(400, 401, 403, 404, 409, 413, 415, 503);
