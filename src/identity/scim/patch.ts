import type { Filter } from 'scim2-parse-filter';
import { scimError } from './errors.ts';
import { parseFilter } from './filter.ts';
import {
  ENTERPRISE_URN,
  IGNORED,
  IGNORED_NAME,
  LIMITS,
  USER_URN,
  attribute,
  isObject,
  readBoolean,
  readEmail,
  readEmails,
  readName,
  readPassword,
  readText,
  readUserName,
  type ScimEmail,
  type UserValues,
} from './user.ts';

export const PATCH_URN = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const MAX_OPERATIONS = 100;
const READ_ONLY = new Set(['id', 'meta', 'groups', 'schemas']);

/** A User after a PATCH: what is kept, and a password when one was set. */
export interface Patched {
  user: UserValues;
  password: string | undefined;
}

type Op = 'add' | 'replace' | 'remove';

/** A PATCH path (RFC 7644 3.5.2): an attribute, a sub-attribute, or a value path into emails with a sub-attribute. */
interface Path {
  attr: string;
  sub: string | undefined;
  filter: Filter | undefined;
}

const invalidPath = (detail: string) => scimError(400, 'invalidPath', detail);

function readPath(raw: unknown): Path | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') throw invalidPath('path must be a string');
  if (raw.length > 300) throw invalidPath('path must be at most 300 characters');
  let text = raw.trim();
  const lower = text.toLowerCase();
  if (lower.startsWith(`${ENTERPRISE_URN.toLowerCase()}:`))
    return { attr: ENTERPRISE_URN.toLowerCase(), sub: undefined, filter: undefined };
  if (lower.startsWith(`${USER_URN.toLowerCase()}:`)) text = text.slice(USER_URN.length + 1);
  const valuePath = /^([A-Za-z][\w-]*)\[(.*)\](?:\.([A-Za-z][\w-]*))?$/s.exec(text);
  if (valuePath) {
    const filter = parseFilter(valuePath[2]!);
    return { attr: valuePath[1]!.toLowerCase(), sub: valuePath[3]?.toLowerCase(), filter };
  }
  const plain = /^([A-Za-z][\w-]*)(?:\.([A-Za-z][\w-]*))?$/.exec(text);
  if (!plain) throw invalidPath(`path "${raw}" is not an attribute path (RFC 7644 3.5.2)`);
  return { attr: plain[1]!.toLowerCase(), sub: plain[2]?.toLowerCase(), filter: undefined };
}

/** Whether an address matches a value path's filter: its sub-attributes value, type, display (any case), primary. */
function matches(e: ScimEmail, f: Filter): boolean {
  switch (f.op) {
    case 'and':
      return f.filters.every((x) => matches(e, x));
    case 'or':
      return f.filters.some((x) => matches(e, x));
    case 'not':
      return !matches(e, f.filter);
    case '[]':
      throw scimError(400, 'invalidFilter', 'a value path inside a value path');
    default: {
      const name = f.attrPath.toLowerCase().replace(/^emails\./, '');
      if (name === 'primary') {
        const has = e.primary === true;
        if (f.op === 'pr') return true;
        if (typeof f.compValue !== 'boolean' || (f.op !== 'eq' && f.op !== 'ne'))
          throw scimError(400, 'invalidFilter', 'primary is compared with true or false (eq, ne)');
        return f.op === 'eq' ? has === f.compValue : has !== f.compValue;
      }
      if (name !== 'value' && name !== 'type' && name !== 'display')
        throw scimError(
          400,
          'invalidFilter',
          `emails has no sub-attribute "${f.attrPath}" (value, type, primary, display)`,
        );
      const actual = e[name]?.toLowerCase();
      if (f.op === 'pr') return Boolean(actual);
      if (typeof f.compValue !== 'string') throw scimError(400, 'invalidFilter', `${name} is compared with a string`);
      const v = f.compValue.toLowerCase();
      switch (f.op) {
        case 'eq':
          return actual === v;
        case 'ne':
          return actual !== v;
        case 'co':
          return actual?.includes(v) ?? false;
        case 'sw':
          return actual?.startsWith(v) ?? false;
        case 'ew':
          return actual?.endsWith(v) ?? false;
        default:
          throw scimError(400, 'invalidFilter', `${name} takes eq, ne, co, sw, ew and pr`);
      }
    }
  }
}

/** `type eq "work"`: the one filter a missing address can be made from (Entra ID adds `emails[type eq "work"].value`). */
function typeOfFilter(f: Filter): string | undefined {
  return f.op === 'eq' && f.attrPath.toLowerCase() === 'type' && typeof f.compValue === 'string'
    ? f.compValue
    : undefined;
}

/** Sets one sub-attribute of an address from a PATCH value, checked as the whole address is. */
function setEmailPart(e: ScimEmail, sub: string, value: unknown, what: string): ScimEmail {
  return readEmail({ ...e, [sub]: value }, what);
}

/** Applies one operation to the model (a copy, so a later failure leaves nothing half done). */
function apply(p: Patched, op: Op, path: Path | undefined, value: unknown, i: number): void {
  const what = `Operations[${i}]`;
  if (!path) {
    if (op === 'remove') throw scimError(400, 'noTarget', `${what}: remove needs a path`);
    if (!isObject(value))
      throw scimError(400, 'invalidValue', `${what}: without a path, value must be an object of attributes`);
    // Each attribute as if named by a path; Entra ID also names sub-attributes this way ("name.givenName").
    for (const [k, v] of Object.entries(value)) apply(p, op, readPath(k), v, i);
    return;
  }
  const u = p.user;
  const needsValue = () => {
    if (op !== 'remove' && value === undefined) throw scimError(400, 'invalidValue', `${what}: ${op} needs a value`);
  };
  needsValue();
  if (path.attr === ENTERPRISE_URN.toLowerCase() || IGNORED.has(path.attr)) {
    if (READ_ONLY.has(path.attr)) throw scimError(400, 'mutability', `${what}: ${path.attr} is read-only`);
    return;
  }
  if (READ_ONLY.has(path.attr)) throw scimError(400, 'mutability', `${what}: ${path.attr} is read-only`);
  if (path.filter && path.attr !== 'emails') throw invalidPath(`${what}: "${path.attr}" takes no filter (emails does)`);
  switch (path.attr) {
    case 'active':
      if (path.sub) throw invalidPath(`${what}: active has no sub-attributes`);
      if (op === 'remove')
        throw scimError(400, 'mutability', `${what}: active cannot be removed; replace it with false`);
      u.active = readBoolean(value, 'active');
      return;
    case 'username':
      if (path.sub) throw invalidPath(`${what}: userName has no sub-attributes`);
      if (op === 'remove') throw scimError(400, 'mutability', `${what}: userName is required and cannot be removed`);
      u.userName = readUserName(value);
      return;
    case 'displayname':
      if (path.sub) throw invalidPath(`${what}: displayName has no sub-attributes`);
      u.displayName = op === 'remove' ? null : readText(value, 'displayName', LIMITS.name);
      return;
    case 'externalid':
      if (path.sub) throw invalidPath(`${what}: externalId has no sub-attributes`);
      u.externalId = op === 'remove' ? null : readText(value, 'externalId', LIMITS.externalId);
      return;
    case 'password':
      if (op === 'remove') throw scimError(400, 'mutability', `${what}: a password cannot be removed`);
      p.password = readPassword(value);
      return;
    case 'name':
      applyName(u, op, path.sub, value, what);
      return;
    case 'emails':
      u.emails = applyEmails(u.emails, op, path, value, what);
      return;
    default:
      throw invalidPath(`${what}: "${path.attr}" is not an attribute of the User schema (GET /Schemas)`);
  }
}

function applyName(u: UserValues, op: Op, sub: string | undefined, value: unknown, what: string): void {
  if (!sub) {
    if (op === 'remove') {
      u.givenName = null;
      u.familyName = null;
      return;
    }
    // Sub-attributes not given are left as they are (RFC 7644 3.5.2.1 and 3.5.2.3).
    if (!isObject(value)) throw scimError(400, 'invalidValue', `${what}: name must be an object`);
    const read = readName(value);
    if (attribute(value, 'givenName') !== undefined) u.givenName = read.givenName;
    if (attribute(value, 'familyName') !== undefined) u.familyName = read.familyName;
    return;
  }
  if (IGNORED_NAME.has(sub)) return;
  const text = op === 'remove' ? null : readText(value, `name.${sub}`, LIMITS.name);
  if (sub === 'givenname') u.givenName = text;
  else if (sub === 'familyname') u.familyName = text;
  else throw invalidPath(`${what}: name has no sub-attribute "${sub}"`);
}

function applyEmails(emails: ScimEmail[], op: Op, path: Path, value: unknown, what: string): ScimEmail[] {
  const { filter, sub } = path;
  if (sub && !['value', 'type', 'primary', 'display'].includes(sub))
    throw invalidPath(`${what}: emails has no sub-attribute "${sub}" (value, type, primary, display)`);
  if (!filter) {
    if (sub) {
      // `emails.value` without a filter names every address's sub-attribute: no directory sends it.
      throw invalidPath(`${what}: name the address with a filter: emails[type eq "work"].${sub}`);
    }
    if (op === 'remove') return [];
    const given = readEmails(Array.isArray(value) ? value : [value]);
    return op === 'add' ? [...emails.filter((e) => !given.some((g) => g.value === e.value)), ...given] : given;
  }
  const hit = emails.map((e) => matches(e, filter));
  if (op === 'remove') {
    if (!sub || sub === 'value') return emails.filter((_, i) => !hit[i]);
    return emails.map((e, i) => {
      if (!hit[i]) return e;
      const { [sub as keyof ScimEmail]: _gone, ...rest } = e;
      return rest as ScimEmail;
    });
  }
  if (!hit.some(Boolean)) {
    const type = typeOfFilter(filter);
    if (type === undefined)
      throw scimError(
        400,
        'noTarget',
        `${what}: no address matches the path's filter, and it names no type to add one under`,
      );
    const made = sub
      ? setEmailPart({ value: '', type }, sub, value, `${what}.value`)
      : readEmail({ type, ...(isObject(value) ? value : {}) }, `${what}.value`);
    return [...emails, made];
  }
  return emails.map((e, i) => {
    if (!hit[i]) return e;
    if (sub) return setEmailPart(e, sub, value, `${what}.value`);
    if (!isObject(value)) throw scimError(400, 'invalidValue', `${what}: an address is an object`);
    return readEmail({ ...e, ...value }, `${what}.value`);
  });
}

/**
 * The operations of a PatchOp body (RFC 7644 3.5.2), Users' and Groups' alike: an object listing the PatchOp schema and
 * a non-empty `Operations` array of at most MAX_OPERATIONS, nothing else; each a 400 in SCIM's shape otherwise.
 */
export function patchOperations(body: unknown): unknown[] {
  if (!isObject(body)) throw scimError(400, 'invalidSyntax', 'the body must be a JSON object: a SCIM PatchOp');
  const schemas = attribute(body, 'schemas');
  if (
    !Array.isArray(schemas) ||
    !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === PATCH_URN.toLowerCase())
  )
    throw scimError(400, 'invalidSyntax', `schemas must list "${PATCH_URN}"`);
  const operations = attribute(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0)
    throw scimError(400, 'invalidSyntax', 'Operations must be a non-empty array');
  if (operations.length > MAX_OPERATIONS) throw scimError(400, 'tooMany', `at most ${MAX_OPERATIONS} operations`);
  for (const k of Object.keys(body))
    if (!['schemas', 'operations'].includes(k.toLowerCase()))
      throw scimError(400, 'invalidSyntax', `a PatchOp has schemas and Operations, not "${k}"`);
  return operations;
}

/**
 * RFC 7644 3.5.2's PatchOp applied to a User: every operation in order, on a copy, so a refused one leaves the person
 * as they were (the whole PATCH is one change). `op` in any case and booleans as text ("False"), as Entra ID sends
 * them; a path of the User schema (with its URN or not), `emails[type eq "work"].value` value paths, or no path and an
 * object of attributes.
 */
export function applyPatch(current: UserValues, body: unknown): Patched {
  const operations = patchOperations(body);
  const patched: Patched = { user: structuredClone(current), password: undefined };
  operations.forEach((o, i) => {
    if (!isObject(o)) throw scimError(400, 'invalidSyntax', `Operations[${i}] must be an object`);
    for (const k of Object.keys(o))
      if (!['op', 'path', 'value'].includes(k.toLowerCase()))
        throw scimError(400, 'invalidSyntax', `Operations[${i}] has op, path and value, not "${k}"`);
    const op = attribute(o, 'op');
    const name = typeof op === 'string' ? op.toLowerCase() : undefined;
    if (name !== 'add' && name !== 'replace' && name !== 'remove')
      throw scimError(400, 'invalidSyntax', `Operations[${i}].op must be add, replace or remove`);
    apply(patched, name, readPath(attribute(o, 'path')), attribute(o, 'value'), i);
  });
  return patched;
}
