import { HttpError } from '../../kit/errors.ts';

/**
 * Extra claims an application gets in its tokens, each a declared mapping from something identity knows of the person
 * (like Keycloak's protocol mappers or Auth0's claim rules, but without code): a profile field, a value of their
 * metadata, or their role in the token's organization.
 */
export interface ClaimMapping {
  /** The claim's name in the token. */
  claim: string;
  /** `name`, `email`, `email_verified`, `given_name`, `family_name`, `locale`, `metadata.<key>[.<key>…]`, `organization.id`, `organization.role` or `organization.permissions`. */
  source: string;
  /** Which tokens carry it: the ID token, the access token (seen at introspection), or both. */
  tokens: ('id_token' | 'access_token')[];
}

const PROFILE = ['name', 'email', 'email_verified', 'given_name', 'family_name', 'locale'] as const;
const ORGANIZATION = ['organization.id', 'organization.role', 'organization.permissions'] as const;
const METADATA = /^metadata(\.[A-Za-z0-9_-]{1,64}){1,4}$/;
const CLAIM_NAME = /^[A-Za-z][A-Za-z0-9_:./-]{0,99}$/;
/**
 * Claims the protocol or this service gives a meaning: a mapping may not replace them (a `sub` or an `aud` of one's
 * choosing would be a forged token), nor the profile claims the scopes already give.
 */
const RESERVED = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'azp',
  'nonce',
  'auth_time',
  'acr',
  'amr',
  'sid',
  'at_hash',
  'c_hash',
  's_hash',
  'scope',
  'client_id',
  'cnf',
  'act',
  'may_act',
  'events',
  'org_id',
  'org_role',
  'org_permissions',
  'email',
  'email_verified',
  'name',
  'given_name',
  'family_name',
  'locale',
  'zoneinfo',
  'updated_at',
  'username',
  'token_type',
  'active',
]);
export const MAX_MAPPINGS = 20;

const bad = (message: string) => new HttpError(400, 'VALIDATION_ERROR', `claim_mappings: ${message}`);

/** The mappings checked before they are stored: names, sources and tokens each valid, no claim twice. */
export function checkClaimMappings(mappings: readonly ClaimMapping[]): ClaimMapping[] {
  if (mappings.length > MAX_MAPPINGS) throw bad(`at most ${MAX_MAPPINGS} mappings`);
  const seen = new Set<string>();
  return mappings.map((m, i) => {
    if (!CLAIM_NAME.test(m.claim))
      throw bad(`[${i}].claim "${m.claim}" must be a letter then letters, digits, _ : . / -`);
    if (RESERVED.has(m.claim))
      throw bad(`[${i}].claim "${m.claim}" is a registered or built-in claim and cannot be mapped`);
    if (seen.has(m.claim)) throw bad(`[${i}].claim "${m.claim}" is mapped twice`);
    seen.add(m.claim);
    const known =
      (PROFILE as readonly string[]).includes(m.source) || (ORGANIZATION as readonly string[]).includes(m.source);
    if (!known && !METADATA.test(m.source))
      throw bad(
        `[${i}].source "${m.source}" is not one of ${[...PROFILE, ...ORGANIZATION].join(', ')} or metadata.<key>`,
      );
    const tokens = [...new Set(m.tokens)];
    if (tokens.length === 0) throw bad(`[${i}].tokens must name id_token, access_token or both`);
    return { claim: m.claim, source: m.source, tokens };
  });
}

/** What the mappings read: the person's profile and metadata, and the token's organization membership if any. */
export interface ClaimSubject {
  profile: Record<(typeof PROFILE)[number], unknown>;
  metadata: Record<string, unknown> | null;
  organization: { id: unknown; role: unknown; permissions: unknown } | null;
}

function sourceValue(source: string, s: ClaimSubject): unknown {
  if (source.startsWith('organization.')) {
    const key = source.slice('organization.'.length) as 'id' | 'role' | 'permissions';
    return s.organization?.[key];
  }
  if (source.startsWith('metadata.')) {
    let value: unknown = s.metadata;
    for (const key of source.split('.').slice(1)) {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  }
  return s.profile[source as (typeof PROFILE)[number]];
}

/** The claims a token gets; a source with no value (no metadata key, no organization) gives no claim. */
export function mappedClaims(
  mappings: readonly ClaimMapping[],
  token: 'id_token' | 'access_token',
  subject: ClaimSubject,
): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const m of mappings) {
    if (!m.tokens.includes(token)) continue;
    const value = sourceValue(m.source, subject);
    if (value !== undefined && value !== null) claims[m.claim] = value;
  }
  return claims;
}
