import { Type, type TSchema } from 'typebox';

/** Schemas every management route shares. */
export const Uuid = Type.String({ format: 'uuid' });
export const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() });
export const Errors = { 400: OAuthError, 401: OAuthError, 403: OAuthError, 404: OAuthError, 409: OAuthError };
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const Page = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }), after: Type.Optional(Uuid) });
export const JsonObject = Type.Record(Type.String(), Type.Unknown());
export const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });
export const Security = [{ adminToken: [] }];
