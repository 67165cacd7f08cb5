import type { Filter } from 'scim2-parse-filter';
import { scimError } from './errors.ts';
import { parseFilter } from './filter.ts';
import { patchOperations } from './patch.ts';
import { GROUP_URN, attribute, isObject, readText } from './user.ts';

/**
 * A SCIM Group (RFC 7643 4.2) as the platform keeps it: an organization, its `displayName` the organization's name, its
 * `members` memberships of the connection's people (by their ids).
 */
export interface GroupValues {
  displayName: string;
  externalId: string | null;
  members: string[];
}

export interface GroupRecord extends GroupValues {
  id: string;
  created: string;
  lastModified: string;
  /** The members' display names, for `members[].display`. */
  names: Map<string, string>;
}

export const GROUP_LIMITS = { name: 200, externalId: 500, members: 1000 } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `members`: `[{value: <a User's id>}]` (display, type and $ref, answered by the platform, are ignored). */
export function readMembers(v: unknown, what = 'members'): string[] {
  if (v === null || v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  if (list.length > GROUP_LIMITS.members)
    throw scimError(400, 'invalidValue', `at most ${GROUP_LIMITS.members} members`);
  return [
    ...new Set(
      list.map((m, i) => {
        if (!isObject(m)) throw scimError(400, 'invalidValue', `${what}[${i}] must be an object with a value`);
        for (const k of Object.keys(m))
          if (!['value', 'display', 'type', '$ref'].includes(k.toLowerCase()))
            throw scimError(400, 'invalidSyntax', `${what}[${i}] has no attribute "${k}" (value, display, type, $ref)`);
        const value = attribute(m, 'value');
        if (typeof value !== 'string' || !UUID.test(value))
          throw scimError(400, 'invalidValue', `${what}[${i}].value must be the id of a User`);
        return value.toLowerCase();
      }),
    ),
  ];
}

function readDisplayName(v: unknown): string {
  if (v === undefined || v === null) throw scimError(400, 'invalidValue', 'displayName is required');
  return readText(v, 'displayName', GROUP_LIMITS.name, false)!.trim();
}

/** A Group of a POST or PUT, read strictly: displayName, externalId, members; id and meta ignored; else 400. */
export function readGroup(body: unknown): GroupValues {
  if (!isObject(body)) throw scimError(400, 'invalidSyntax', 'the body must be a JSON object: a SCIM Group');
  const schemas = attribute(body, 'schemas');
  if (
    !Array.isArray(schemas) ||
    !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === GROUP_URN.toLowerCase())
  )
    throw scimError(400, 'invalidSyntax', `schemas must list "${GROUP_URN}"`);
  const g: GroupValues = { displayName: '', externalId: null, members: [] };
  let named = false;
  for (const [k, v] of Object.entries(body)) {
    const key = k.toLowerCase();
    if (key === 'schemas' || key === 'id' || key === 'meta') continue;
    if (key === 'displayname') {
      g.displayName = readDisplayName(v);
      named = true;
    } else if (key === 'externalid') g.externalId = readText(v, 'externalId', GROUP_LIMITS.externalId);
    else if (key === 'members') g.members = readMembers(v);
    else throw scimError(400, 'invalidSyntax', `unknown attribute "${k}": not in the Group schema (GET /Schemas)`);
  }
  if (!named) throw scimError(400, 'invalidValue', 'displayName is required');
  return g;
}

/** `members[value eq "…"]`: the members a value path names. */
function membersMatching(members: string[], f: Filter): string[] {
  const test = (id: string, x: Filter): boolean => {
    if (x.op === 'and') return x.filters.every((y) => test(id, y));
    if (x.op === 'or') return x.filters.some((y) => test(id, y));
    if (x.op === 'not') return !test(id, x.filter);
    if (x.op === 'eq' && x.attrPath.toLowerCase() === 'value' && typeof x.compValue === 'string')
      return id === x.compValue.toLowerCase();
    throw scimError(400, 'invalidFilter', 'a member is named by value eq "<id>"');
  };
  return members.filter((id) => test(id, f));
}

/**
 * RFC 7644 3.5.2 on a Group, all or none: displayName, externalId and members, as Okta (`members[value eq "…"]`) and
 * Entra ID (`remove` of `members` with a value list) send them; `op` in any case.
 */
export function patchGroup(current: GroupValues, body: unknown): GroupValues {
  const operations = patchOperations(body);
  const g: GroupValues = structuredClone(current);
  const apply = (op: string, path: string | undefined, value: unknown, what: string): void => {
    if (path === undefined) {
      if (op === 'remove') throw scimError(400, 'noTarget', `${what}: remove needs a path`);
      if (!isObject(value)) throw scimError(400, 'invalidValue', `${what}: without a path, value must be an object`);
      for (const [k, v] of Object.entries(value)) if (k.toLowerCase() !== 'id') apply(op, k, v, what);
      return;
    }
    if (op !== 'remove' && value === undefined) throw scimError(400, 'invalidValue', `${what}: ${op} needs a value`);
    const text = path.replace(new RegExp(`^${GROUP_URN.replace(/\./g, '\\.')}:`, 'i'), '');
    const valuePath = /^members\[(.*)\]$/is.exec(text);
    if (valuePath) {
      if (op !== 'remove')
        throw scimError(400, 'invalidPath', `${what}: members[…] is for remove; add members with path members`);
      const gone = new Set(membersMatching(g.members, parseFilter(valuePath[1]!)));
      g.members = g.members.filter((m) => !gone.has(m));
      return;
    }
    switch (text.toLowerCase()) {
      case 'displayname':
        if (op === 'remove') throw scimError(400, 'mutability', `${what}: displayName is required`);
        g.displayName = readDisplayName(value);
        return;
      case 'externalid':
        g.externalId = op === 'remove' ? null : readText(value, 'externalId', GROUP_LIMITS.externalId);
        return;
      case 'members': {
        if (op === 'remove') {
          if (value === undefined) g.members = [];
          else {
            const gone = new Set(readMembers(value, `${what}.value`));
            g.members = g.members.filter((m) => !gone.has(m));
          }
          return;
        }
        const given = readMembers(value, `${what}.value`);
        g.members = op === 'add' ? [...new Set([...g.members, ...given])] : given;
        return;
      }
      default:
        throw scimError(400, 'invalidPath', `${what}: "${path}" is not an attribute of the Group schema`);
    }
  };
  operations.forEach((o, i) => {
    const what = `Operations[${i}]`;
    if (!isObject(o)) throw scimError(400, 'invalidSyntax', `${what} must be an object`);
    for (const k of Object.keys(o))
      if (!['op', 'path', 'value'].includes(k.toLowerCase()))
        throw scimError(400, 'invalidSyntax', `${what} has op, path and value, not "${k}"`);
    const op = attribute(o, 'op');
    const name = typeof op === 'string' ? op.toLowerCase() : undefined;
    if (name !== 'add' && name !== 'replace' && name !== 'remove')
      throw scimError(400, 'invalidSyntax', `${what}.op must be add, replace or remove`);
    const path = attribute(o, 'path');
    if (path !== undefined && path !== null && (typeof path !== 'string' || path.length > 300))
      throw scimError(400, 'invalidPath', `${what}.path must be a string of at most 300 characters`);
    apply(name, (path as string | null | undefined) || undefined, attribute(o, 'value'), what);
  });
  return g;
}

export function groupOut(g: GroupRecord, base: string): Record<string, unknown> {
  return {
    schemas: [GROUP_URN],
    id: g.id,
    ...(g.externalId !== null ? { externalId: g.externalId } : {}),
    displayName: g.displayName,
    members: g.members.map((id) => ({
      value: id,
      display: g.names.get(id),
      type: 'User',
      $ref: `${base}/Users/${id}`,
    })),
    meta: {
      resourceType: 'Group',
      created: g.created,
      lastModified: g.lastModified,
      location: `${base}/Groups/${g.id}`,
    },
  };
}
