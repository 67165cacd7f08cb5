import { MAX_RESULTS } from './list.ts';
import { GROUP_LIMITS } from './group.ts';
import { GROUP_URN, LIMITS, USER_URN } from './user.ts';

/** RFC 7643 5, 6 and 7: what the service provider says about itself, for directories that read it. */
export const SPC_URN = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const RESOURCE_TYPE_URN = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
export const SCHEMA_URN = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export function serviceProviderConfig(base: string) {
  return {
    schemas: [SPC_URN],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: true },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'SCIM connection token',
        description:
          'Authorization: Bearer scim_…, the token of a SCIM connection, made by a platform admin (POST /api/v1/scim-connections or `platform identity scim create`) and shown once.',
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

/** Users, and Groups as organizations. */
export function resourceTypes(base: string) {
  return [
    {
      schemas: [RESOURCE_TYPE_URN],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person of the platform, signing in by the email that is their userName.',
      schema: USER_URN,
      schemaExtensions: [],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_URN],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: "An organization of the platform; its members are the connection's people who belong to it.",
      schema: GROUP_URN,
      schemaExtensions: [],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

export function groupSchema(base: string) {
  return {
    schemas: [SCHEMA_URN],
    id: GROUP_URN,
    name: 'Group',
    description: 'An organization of the platform (type team), made, renamed, filled and deactivated by the directory.',
    attributes: [
      text('displayName', `The organization's name (at most ${GROUP_LIMITS.name} characters).`, { required: true }),
      {
        name: 'members',
        type: 'complex',
        multiValued: true,
        description: `The connection's people who are members (at most ${GROUP_LIMITS.members}), with the role member.`,
        required: false,
        mutability: 'readWrite',
        returned: 'default',
        uniqueness: 'none',
        subAttributes: [
          { ...text('value', "A User's id.", { caseExact: true, mutability: 'immutable' }) },
          text('display', "The member's display name.", { mutability: 'readOnly' }),
          text('type', 'User.', { mutability: 'immutable' }),
          {
            ...text('$ref', "The User's URI.", { mutability: 'immutable' }),
            type: 'reference',
            referenceTypes: ['User'],
          },
        ],
      },
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_URN}` },
  };
}

const text = (
  name: string,
  description: string,
  more: { required?: boolean; caseExact?: boolean; uniqueness?: string; mutability?: string; returned?: string } = {},
) => ({
  name,
  type: 'string',
  multiValued: false,
  description,
  required: more.required ?? false,
  caseExact: more.caseExact ?? false,
  mutability: more.mutability ?? 'readWrite',
  returned: more.returned ?? 'default',
  uniqueness: more.uniqueness ?? 'none',
});

/** The User schema as the platform keeps it: the attributes it stores; the core schema's others are accepted and ignored. */
export function userSchema(base: string) {
  return {
    schemas: [SCHEMA_URN],
    id: USER_URN,
    name: 'User',
    description:
      "A person. The core schema's other attributes (title, phoneNumbers, addresses, …) and the enterprise extension are accepted and not kept.",
    attributes: [
      text('userName', `The person's sign-in email (at most ${LIMITS.email} characters), compared in any case.`, {
        required: true,
        uniqueness: 'server',
      }),
      {
        name: 'name',
        type: 'complex',
        multiValued: false,
        description: "The person's names.",
        required: false,
        mutability: 'readWrite',
        returned: 'default',
        uniqueness: 'none',
        subAttributes: [
          text('givenName', `At most ${LIMITS.name} characters.`),
          text('familyName', `At most ${LIMITS.name} characters.`),
          text('formatted', 'The two names together; set by the platform.', { mutability: 'readOnly' }),
        ],
      },
      text(
        'displayName',
        `Shown in the console and on the sign-in pages (at most ${LIMITS.name} characters); the two names, else the email, when not given.`,
      ),
      {
        name: 'emails',
        type: 'complex',
        multiValued: true,
        description: `The directory's addresses (at most ${LIMITS.emails}), answered as given; userName when none. The person signs in with userName.`,
        required: false,
        mutability: 'readWrite',
        returned: 'default',
        uniqueness: 'none',
        subAttributes: [
          text('value', 'An email address.'),
          text('type', 'work, home, other, …'),
          { ...text('primary', 'At most one address is primary.'), type: 'boolean' },
          text('display', 'A label.'),
        ],
      },
      {
        name: 'active',
        type: 'boolean',
        multiValued: false,
        description:
          "false deactivates the person as the platform's console does: their sessions end, their tokens stop counting, they cannot sign in.",
        required: false,
        mutability: 'readWrite',
        returned: 'default',
      },
      text('password', 'Sets the person’s password (at least 12 characters); never answered.', {
        mutability: 'writeOnly',
        returned: 'never',
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_URN}` },
  };
}
