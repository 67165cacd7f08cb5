import { Type } from 'typebox';
import { SCIM } from '../access/rules.ts';
import type { ScimUserDeps } from './users.ts';

/** What SCIM's route files share: their dependencies, OpenAPI tags and security, and each route's common options. */
export interface ScimRouteDeps extends ScimUserDeps {
  issuer: string;
}

export const tags = ['scim'];
export const security = [{ scimToken: [] }];
/** Both media types, read and answered (routes.ts parses both). */
export const content = ['application/scim+json', 'application/json'];
export const Id = Type.Object({ id: Type.String() });

export const common = { config: { access: SCIM } } as const;
export const schema = (operationId: string, summary: string, more: Record<string, unknown>) => ({
  operationId,
  tags,
  security,
  summary,
  consumes: content,
  produces: content,
  ...more,
});
export const ListQuery = (example: string) =>
  Type.Object({
    filter: Type.Optional(Type.String({ description: `e.g. ${example} (docs/identity.md lists what)` })),
    startIndex: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    count: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, default: 100 })),
    attributes: Type.Optional(Type.String()),
    excludedAttributes: Type.Optional(Type.String()),
  });
