import { scimError } from './errors.ts';

/** RFC 7643 8.7.1: the core User schema, and the enterprise extension directories send beside it. */
export const USER_URN = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_URN = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_URN = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** An address as the directory sent it. The person's sign-in address is `userName`; these are kept to be answered. */
export interface ScimEmail {
  value: string;
  type?: string;
  primary?: boolean;
  display?: string;
}

/**
 * What the platform keeps of a SCIM User: `userName` is the person's sign-in email (the platform signs people in by
 * email), `displayName` and the two names its profile's, `externalId` and `emails` the directory's own.
 */
export interface UserValues {
  userName: string;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  externalId: string | null;
  emails: ScimEmail[];
  active: boolean;
}

/** A User as a request gives it: `active` absent keeps the person's (a new one is active), `password` write-only. */
export interface UserInput extends Omit<UserValues, 'active'> {
  active: boolean | undefined;
  password: string | undefined;
}

export const LIMITS = { email: 320, name: 200, externalId: 500, emails: 20, emailType: 50, password: 1024 } as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Core User attributes (RFC 7643 4.1) the platform does not keep: accepted and ignored, so a directory's default
 * attribute mappings (title, phoneNumbers, addresses, … Entra ID sends them all) work as they are. `id`, `meta` and
 * `groups` are read-only: a request's values are ignored (RFC 7643 2.2).
 */
export const IGNORED = new Set(
  [
    'nickName',
    'profileUrl',
    'title',
    'userType',
    'preferredLanguage',
    'locale',
    'timezone',
    'phoneNumbers',
    'ims',
    'photos',
    'addresses',
    'entitlements',
    'roles',
    'x509Certificates',
    'id',
    'meta',
    'groups',
  ].map((a) => a.toLowerCase()),
);
/** Sub-attributes of `name` that are not kept (`formatted` is answered from the two names). */
export const IGNORED_NAME = new Set(['formatted', 'middlename', 'honorificprefix', 'honorificsuffix']);

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7643 2.1: attribute names are case-insensitive; the value under `name` whatever its case. */
export function attribute(o: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(o)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** A boolean, or the text of one in any case: Entra ID sends `"False"` where the schema says boolean. */
export function readBoolean(v: unknown, what: string): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw scimError(400, 'invalidValue', `${what} must be a boolean`);
}

/** A text of at most `max` characters; null (or an empty text) for none where `optional`. */
export function readText(v: unknown, what: string, max: number, optional = true): string | null {
  if ((v === null || v === undefined || v === '') && optional) return null;
  if (typeof v !== 'string') throw scimError(400, 'invalidValue', `${what} must be a string`);
  if (v.length > max) throw scimError(400, 'invalidValue', `${what} must be at most ${max} characters`);
  if (!optional && !v.trim()) throw scimError(400, 'invalidValue', `${what} must not be empty`);
  return v;
}

/** userName: the person's sign-in email, compared in any case (stored in lower case, as every email here). */
export function readUserName(v: unknown): string {
  if (v === undefined || v === null) throw scimError(400, 'invalidValue', 'userName is required');
  const text = readText(v, 'userName', LIMITS.email, false)!.trim().toLowerCase();
  if (!EMAIL.test(text))
    throw scimError(400, 'invalidValue', 'userName must be an email address: people sign in here by email');
  return text;
}

export function readEmails(v: unknown): ScimEmail[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw scimError(400, 'invalidValue', 'emails must be an array');
  if (v.length > LIMITS.emails) throw scimError(400, 'invalidValue', `at most ${LIMITS.emails} emails`);
  return v.map((e, i) => readEmail(e, `emails[${i}]`));
}

export function readEmail(e: unknown, what: string): ScimEmail {
  if (!isObject(e)) throw scimError(400, 'invalidValue', `${what} must be an object`);
  const out: ScimEmail = { value: '' };
  for (const [k, v] of Object.entries(e)) {
    const key = k.toLowerCase();
    if (key === 'value') {
      const value = readText(v, `${what}.value`, LIMITS.email, false)!.trim();
      if (!EMAIL.test(value)) throw scimError(400, 'invalidValue', `${what}.value must be an email address`);
      out.value = value;
    } else if (key === 'type') {
      const type = readText(v, `${what}.type`, LIMITS.emailType);
      if (type) out.type = type;
    } else if (key === 'primary') out.primary = readBoolean(v, `${what}.primary`);
    else if (key === 'display') {
      const display = readText(v, `${what}.display`, LIMITS.email);
      if (display) out.display = display;
    } else throw scimError(400, 'invalidSyntax', `${what} has no attribute "${k}" (value, type, primary, display)`);
  }
  if (!out.value) throw scimError(400, 'invalidValue', `${what}.value is required`);
  return out;
}

export function readPassword(v: unknown): string {
  if (typeof v !== 'string') throw scimError(400, 'invalidValue', 'password must be a string');
  if (v.length > LIMITS.password)
    throw scimError(400, 'invalidValue', `password must be at most ${LIMITS.password} characters`);
  return v;
}

/** The `name` complex attribute: the two names kept, the others of the schema ignored, anything else refused. */
export function readName(v: unknown): { givenName: string | null; familyName: string | null } {
  if (v === null || v === undefined) return { givenName: null, familyName: null };
  if (!isObject(v)) throw scimError(400, 'invalidValue', 'name must be an object');
  const out = { givenName: null as string | null, familyName: null as string | null };
  for (const [k, value] of Object.entries(v)) {
    const key = k.toLowerCase();
    if (key === 'givenname') out.givenName = readText(value, 'name.givenName', LIMITS.name);
    else if (key === 'familyname') out.familyName = readText(value, 'name.familyName', LIMITS.name);
    else if (IGNORED_NAME.has(key)) readText(value, `name.${k}`, 1000);
    else throw scimError(400, 'invalidSyntax', `name has no attribute "${k}"`);
  }
  return out;
}

/**
 * A User resource of a POST or PUT, read strictly by the schema: every attribute of the core schema the platform keeps
 * is checked (type, length, an email for userName), those it does not keep are ignored, the enterprise extension is
 * ignored, and an attribute of no schema is a 400 `invalidSyntax` naming it. Names in any case (RFC 7643 2.1).
 */
export function readUser(body: unknown): UserInput {
  if (!isObject(body)) throw scimError(400, 'invalidSyntax', 'the body must be a JSON object: a SCIM User');
  const schemas = attribute(body, 'schemas');
  if (
    !Array.isArray(schemas) ||
    !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === USER_URN.toLowerCase())
  )
    throw scimError(400, 'invalidSyntax', `schemas must list "${USER_URN}"`);
  const user: UserInput = {
    userName: '',
    givenName: null,
    familyName: null,
    displayName: null,
    externalId: null,
    emails: [],
    active: undefined,
    password: undefined,
  };
  let named = false;
  for (const [k, v] of Object.entries(body)) {
    const key = k.toLowerCase();
    if (key === 'schemas' || key === ENTERPRISE_URN.toLowerCase() || IGNORED.has(key)) continue;
    if (key === 'username') {
      user.userName = readUserName(v);
      named = true;
    } else if (key === 'name') Object.assign(user, readName(v));
    else if (key === 'displayname') user.displayName = readText(v, 'displayName', LIMITS.name);
    else if (key === 'externalid') user.externalId = readText(v, 'externalId', LIMITS.externalId);
    else if (key === 'emails') user.emails = readEmails(v);
    else if (key === 'active') user.active = readBoolean(v, 'active');
    else if (key === 'password') user.password = readPassword(v);
    else throw scimError(400, 'invalidSyntax', `unknown attribute "${k}": not in the User schema (GET /Schemas)`);
  }
  if (!named) throw scimError(400, 'invalidValue', 'userName is required');
  return user;
}

/** How a person is shown to the directory (RFC 7643 4.1 and 3.1's common attributes). */
export interface UserRecord extends UserValues {
  id: string;
  created: string;
  lastModified: string;
}

/** The addresses answered: those the directory sent, or the sign-in email as the one work address. */
export function emailsOf(u: Pick<UserValues, 'emails' | 'userName'>): ScimEmail[] {
  return u.emails.length ? u.emails : [{ value: u.userName, type: 'work', primary: true }];
}

export function userOut(u: UserRecord, base: string): Record<string, unknown> {
  const formatted = [u.givenName, u.familyName].filter(Boolean).join(' ');
  return {
    schemas: [USER_URN],
    id: u.id,
    ...(u.externalId !== null ? { externalId: u.externalId } : {}),
    userName: u.userName,
    name: {
      ...(u.givenName !== null ? { givenName: u.givenName } : {}),
      ...(u.familyName !== null ? { familyName: u.familyName } : {}),
      ...(formatted ? { formatted } : {}),
    },
    displayName: u.displayName ?? u.userName,
    emails: emailsOf(u),
    active: u.active,
    meta: {
      resourceType: 'User',
      created: u.created,
      lastModified: u.lastModified,
      location: `${base}/Users/${u.id}`,
    },
  };
}
