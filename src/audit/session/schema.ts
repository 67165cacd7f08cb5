import { Type } from 'typebox';

/** Names of stored secrets: letters, digits and `_`, as environment variables are named (the CLI reads them from there). */
export const SECRET_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
export const SecretName = Type.String({
  pattern: SECRET_NAME_PATTERN,
  description: 'The name of a secret stored with PUT /api/v1/secrets/{name}: letters, digits and _, at most 64',
});

const Selector = Type.String({ minLength: 1, maxLength: 500, description: 'A CSS selector (Playwright syntax)' });

/**
 * One sign-in step. One object shape for every action, so a wrong one is answered with what that action needs
 * (src/audit/session/resolve.ts) instead of a union's list of every branch's errors.
 */
const Step = Type.Object(
  {
    action: Type.Union(
      [
        Type.Literal('goto'),
        Type.Literal('fill'),
        Type.Literal('click'),
        Type.Literal('waitForSelector'),
        Type.Literal('waitForUrl'),
      ],
      {
        description:
          'goto {url}; fill {selector, value or secret}; click {selector}; waitForSelector {selector}; waitForUrl {url: a pattern, * for any characters}',
      },
    ),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    selector: Type.Optional(Selector),
    value: Type.Optional(
      Type.String({ maxLength: 1000, description: 'A value that is no secret (a user name); a password is a secret' }),
    ),
    secret: Type.Optional(SecretName),
  },
  { additionalProperties: false },
);

const SecretField = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }),
    secret: SecretName,
  },
  { additionalProperties: false },
);

export const SessionOptions = Type.Object(
  {
    steps: Type.Optional(Type.Array(Step, { maxItems: 30, description: 'Run in order before the first page' })),
    cookies: Type.Optional(
      Type.Array(SecretField, { maxItems: 20, description: "Cookies set for the audited URL's site" }),
    ),
    headers: Type.Optional(
      Type.Array(SecretField, {
        maxItems: 20,
        description: "Headers sent with every request to the audited URL's origin, and to no other origin",
      }),
    ),
    signOut: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
        maxItems: 20,
        description: 'URL patterns of links never followed (sign-out links are recognised without them)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Sign-in steps, cookies and headers for pages behind a sign-in. Secret values are referenced by name, never written here',
  },
);

export interface RequestedSession {
  steps?: Array<{ action: string; url?: string; selector?: string; value?: string; secret?: string }> | undefined;
  cookies?: Array<{ name: string; secret: string }> | undefined;
  headers?: Array<{ name: string; secret: string }> | undefined;
  signOut?: string[] | undefined;
}
