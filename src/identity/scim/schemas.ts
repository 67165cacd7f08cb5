import { Type } from 'typebox';
import { ERROR_URN } from './errors.ts';
import { PATCH_URN } from './patch.ts';
import { LIST_URN } from './list.ts';
import { GROUP_LIMITS } from './group.ts';
import { GROUP_URN, LIMITS, USER_URN } from './user.ts';

/**
 * The OpenAPI description of SCIM's bodies. Documentation only: SCIM's own rules (attribute names in any case, booleans
 * sent as text by Entra ID, unknown attributes of the core schema ignored) are not JSON Schema's, so the routes check
 * bodies and queries themselves (user.ts, patch.ts, list.ts) and answer in SCIM's error shape.
 */
const Email = Type.Object({
  value: Type.String({ maxLength: LIMITS.email }),
  type: Type.Optional(Type.String({ maxLength: LIMITS.emailType })),
  primary: Type.Optional(Type.Boolean()),
  display: Type.Optional(Type.String()),
});

const UserFields = {
  externalId: Type.Optional(Type.String({ maxLength: LIMITS.externalId, description: "The directory's own id." })),
  userName: Type.String({ maxLength: LIMITS.email, description: "The person's sign-in email." }),
  name: Type.Optional(
    Type.Object({
      givenName: Type.Optional(Type.String({ maxLength: LIMITS.name })),
      familyName: Type.Optional(Type.String({ maxLength: LIMITS.name })),
      formatted: Type.Optional(Type.String({ description: 'Answered; ignored in requests.' })),
    }),
  ),
  displayName: Type.Optional(Type.String({ maxLength: LIMITS.name })),
  emails: Type.Optional(Type.Array(Email, { maxItems: LIMITS.emails })),
  active: Type.Optional(Type.Boolean({ description: 'false deactivates the person; "True"/"False" are read too.' })),
};

export const UserIn = Type.Object(
  {
    schemas: Type.Array(Type.String(), { description: `Lists ${USER_URN}.` }),
    ...UserFields,
    password: Type.Optional(Type.String({ description: 'Sets the password (at least 12 characters).' })),
  },
  {
    description:
      "A SCIM User (RFC 7643 4.1). The core schema's other attributes and the enterprise extension are accepted and not kept; any other attribute is 400 invalidSyntax.",
  },
);

export const UserOut = Type.Object({
  schemas: Type.Array(Type.String()),
  id: Type.String({ format: 'uuid', description: "The person's principal id." }),
  ...UserFields,
  active: Type.Boolean(),
  meta: Type.Object({
    resourceType: Type.Literal('User'),
    created: Type.String({ format: 'date-time' }),
    lastModified: Type.String({ format: 'date-time' }),
    location: Type.String(),
  }),
});

const Member = Type.Object({
  value: Type.String({ format: 'uuid', description: "A User's id: one of the connection's people." }),
  display: Type.Optional(Type.String({ description: 'Answered; ignored in requests.' })),
  type: Type.Optional(Type.String({ description: "User. (Answers also carry `$ref`, the User's URI.)" })),
});

const GroupFields = {
  externalId: Type.Optional(Type.String({ maxLength: GROUP_LIMITS.externalId })),
  displayName: Type.String({ maxLength: GROUP_LIMITS.name, description: "The organization's name." }),
  members: Type.Optional(Type.Array(Member, { maxItems: GROUP_LIMITS.members })),
};

export const GroupIn = Type.Object(
  { schemas: Type.Array(Type.String(), { description: `Lists ${GROUP_URN}.` }), ...GroupFields },
  { description: 'A SCIM Group (RFC 7643 4.2): an organization of the platform, its members memberships.' },
);

export const GroupOut = Type.Object({
  schemas: Type.Array(Type.String()),
  id: Type.String({ format: 'uuid', description: "The organization's id." }),
  ...GroupFields,
  meta: Type.Object({
    resourceType: Type.Literal('Group'),
    created: Type.String({ format: 'date-time' }),
    lastModified: Type.String({ format: 'date-time' }),
    location: Type.String(),
  }),
});

export const ListOut = (item: ReturnType<typeof Type.Object>) =>
  Type.Object({
    schemas: Type.Array(Type.Literal(LIST_URN)),
    totalResults: Type.Integer(),
    startIndex: Type.Integer(),
    itemsPerPage: Type.Integer(),
    Resources: Type.Array(item),
  });

export const PatchIn = Type.Object(
  {
    schemas: Type.Array(Type.String(), { description: `Lists ${PATCH_URN}.` }),
    Operations: Type.Array(
      Type.Object({
        op: Type.String({ description: 'add, replace or remove, in any case.' }),
        path: Type.Optional(
          Type.String({
            description:
              'An attribute (`active`, `name.givenName`, with the core URN or not), or `emails[type eq "work"].value`; none: value is an object of attributes.',
          }),
        ),
        value: Type.Optional(Type.Unknown()),
      }),
      { minItems: 1, maxItems: 100 },
    ),
  },
  { description: 'RFC 7644 3.5.2: applied in order, all or none.' },
);

export const ScimErrorOut = Type.Object(
  {
    schemas: Type.Array(Type.Literal(ERROR_URN)),
    status: Type.String({ description: 'The HTTP status, as a string.' }),
    scimType: Type.Optional(
      Type.String({
        description:
          'invalidFilter, tooMany, uniqueness, mutability, invalidSyntax, invalidPath, noTarget, invalidValue',
      }),
    ),
    detail: Type.String(),
  },
  { description: 'RFC 7644 3.12' },
);

export const ScimErrors = Object.fromEntries([400, 401, 404, 409, 413, 415].map((s) => [s, ScimErrorOut]));
export const AnyObject = Type.Object({}, { additionalProperties: true });
