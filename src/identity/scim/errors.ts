import { HttpError, codeForStatus, type ApiError } from '../../kit/errors.ts';

/** Where SCIM 2.0 is served: its base URL is the issuer's origin with this path. */
export const SCIM_PREFIX = '/scim/v2';

/** RFC 7644 3.12's error URN: every SCIM error body names it. */
export const ERROR_URN = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 3.12, table 9: the `scimType` of a 400 (and `uniqueness` of a 409). */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/** A refusal in SCIM's terms, answered by the app's one error handler in SCIM's shape (scimErrorBody). */
export function scimError(status: number, scimType: ScimType | undefined, detail: string): HttpError {
  return new HttpError(status, codeForStatus(status), detail, scimType ? { details: { scimType } } : {});
}

/**
 * RFC 7644 3.12: `{schemas, status, scimType, detail}`, the status a string. A 400 raised outside SCIM's own checks (a
 * NUL in a field, an oversized number) has no scimType of its own: it is a value the schema does not allow.
 */
export function scimErrorBody(e: ApiError): unknown {
  const given = e.details?.scimType;
  const scimType = typeof given === 'string' ? given : e.statusCode === 400 ? 'invalidValue' : undefined;
  return { schemas: [ERROR_URN], status: String(e.statusCode), ...(scimType ? { scimType } : {}), detail: e.message };
}
