import { Type, type TSchema } from 'typebox';
import { errorResponses } from '../../kit/errors.ts';
import { pageQuery } from '../../kit/paging.ts';
import { ADMIN_SECURITY_SCHEME } from '../../kit/auth/admin-guard.ts';
import { ADMIN_SCOPE } from '../config.ts';

/** Schemas every management route shares. */
export const Uuid = Type.String({ format: 'uuid' });
export const Errors = errorResponses(400, 401, 403, 404, 409);
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const Page = Type.Object(pageQuery(), { additionalProperties: false });
/** A page of applications, optionally only those whose name or client_id contains `q` (any case). */
export const AppSearch = Type.Object(
  { ...pageQuery(), q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);
/** The cursor of a list ordered by id. */
export const ById = Type.Tuple([Uuid]);
/** The cursor of a list in creation order: the exact creation time and the id. */
export const ByTime = Type.Tuple([Type.String({ maxLength: 64 }), Uuid]);
export const JsonObject = Type.Record(Type.String(), Type.Unknown());
export const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });
/** Every management route needs the `admin` scope: its OpenAPI security, as its ADMIN access declares (access/rules.ts). */
export const Security = [{ [ADMIN_SECURITY_SCHEME]: [ADMIN_SCOPE] }];
