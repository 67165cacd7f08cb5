/**
 * What a change made through the management API is called in the change log, read from the route that made it, so
 * every route added later is named without a list to keep up: `POST /applications` is `application.create`,
 * `POST /principals/:id/deactivate` `principal.deactivate`, `DELETE /organizations/:id/members/:principalId`
 * `organization.member.delete`. The target is the first resource of the path (`:id`, or the id a create answered);
 * the other ids of the path and what the request set go in the details, secrets never.
 */
export interface ChangeDescription {
  action: string;
  target: { type: string; id: string };
  details: Record<string, unknown>;
}

/** A path's last word that names what was done rather than a thing. */
const VERBS = new Set([
  'activate',
  'approve',
  'archive',
  'deactivate',
  'deny',
  'publish',
  'reject',
  'resend',
  'revoke',
  'rotate',
  'submit',
  'withdraw',
]);
const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'set', PATCH: 'update', DELETE: 'delete' };
const SINGULAR: Record<string, string> = {
  people: 'member',
  identities: 'identity',
  'external-identities': 'external-identity',
};

const singular = (word: string) =>
  SINGULAR[word] ?? (word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.endsWith('s') ? word.slice(0, -1) : word);
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Field names whose values are never written down: passwords, secrets, tokens, private keys. */
const SECRET = /pass(word|phrase)?|secret|token|private|^d$|^p$|^q$|^dp$|^dq$|^qi$/i;
const MAX_TEXT = 500;
const MAX_DEPTH = 4;

/** The request's body as the log keeps it: secrets redacted, long texts cut, nesting bounded. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    // A flag or a lifetime named after a token (`access_token_ttl`) is no secret: only texts are hidden.
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      k,
      SECRET.test(k) && typeof v === 'string' ? '[redacted]' : redact(v, depth + 1),
    ]),
  );
}

/**
 * The id a change answered, for a target the path does not name (a create, a key rotation): its own (`id`, or a key's
 * `kid`), or that of the one object it wraps (`{application: {...}, client_secret}`).
 */
function createdId(answer: unknown): string | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  const a = answer as Record<string, unknown>;
  if (typeof a.id === 'string' || typeof a.id === 'number') return String(a.id);
  if (typeof a.kid === 'string') return a.kid;
  for (const v of Object.values(a))
    if (v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string') return (v as { id: string }).id;
  return undefined;
}

export function describeChange(input: {
  method: string;
  /** The route's path as declared, under /api/v1: `/api/v1/organizations/:id/members/:principalId`. */
  route: string;
  params: Record<string, string>;
  body: unknown;
  /** The answer's JSON, read only when the target's id is in it (a create). */
  answer: () => unknown;
}): ChangeDescription {
  const parts = input.route
    .replace(/^\/api\/v1\//, '')
    .split('/')
    .filter(Boolean);
  const nouns: string[] = [];
  const details: Record<string, unknown> = {};
  let verb: string | undefined;
  let targetId: string | undefined;
  parts.forEach((part, i) => {
    if (part.startsWith(':')) {
      const value = input.params[part.slice(1)] ?? '';
      if (targetId === undefined) targetId = value;
      else details[snake(part.slice(1))] = value;
    } else if (i === parts.length - 1 && i > 0 && VERBS.has(part)) verb = part;
    else nouns.push(singular(part));
  });
  verb ??= METHOD_VERBS[input.method] ?? input.method.toLowerCase();
  if (input.body && typeof input.body === 'object' && !Array.isArray(input.body))
    Object.assign(details, redact(input.body) as Record<string, unknown>);
  const created = verb === 'create' || targetId === undefined ? createdId(input.answer()) : undefined;
  if (targetId === undefined) targetId = created;
  else if (created !== undefined && nouns.length > 1)
    details[`${nouns[nouns.length - 1]!.replace(/-/g, '_')}_id`] = created;
  return {
    action: [...nouns, verb].join('.'),
    target: { type: nouns[0] ?? 'unknown', id: targetId || 'unknown' },
    details,
  };
}
