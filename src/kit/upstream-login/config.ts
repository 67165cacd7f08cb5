import type { Variable } from '../config.ts';

/** One OpenID Connect issuer an operator lets people sign in with. */
export interface OidcProviderConfig {
  /** The provider's id in URLs and records; lower-case letters, digits and hyphens. */
  id: string;
  issuer: string;
  clientId: string;
  clientSecret?: string | undefined;
  /** Shown on sign-in buttons; the id when not given. */
  name?: string | undefined;
}

const PROVIDER_ID = /^[a-z][a-z0-9-]{0,31}$/;

/** Parses `[{"id","issuer","clientId","clientSecret","name"}]`; undefined when anything is off (the variable is then refused at start). */
export function parseOidcProviders(raw: string, reserved: ReadonlySet<string>): OidcProviderConfig[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  const out: OidcProviderConfig[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null) return undefined;
    const p = item as Record<string, unknown>;
    if (typeof p.id !== 'string' || !PROVIDER_ID.test(p.id) || reserved.has(p.id)) return undefined;
    if (typeof p.issuer !== 'string' || !/^https?:\/\//.test(p.issuer)) return undefined;
    if (typeof p.clientId !== 'string' || !p.clientId) return undefined;
    if (p.clientSecret !== undefined && typeof p.clientSecret !== 'string') return undefined;
    if (p.name !== undefined && (typeof p.name !== 'string' || p.name.length > 60)) return undefined;
    if (out.some((o) => o.id === p.id)) return undefined;
    out.push({
      id: p.id,
      issuer: p.issuer,
      clientId: p.clientId,
      clientSecret: p.clientSecret as string | undefined,
      name: p.name as string | undefined,
    });
  }
  return out;
}

/** A configuration variable holding such a list (secret: it carries client secrets, never echoed in errors). */
export function oidcProvidersVariable(
  name: string,
  reserved: readonly string[],
  doc: string,
): Variable<OidcProviderConfig[]> {
  const taken = new Set(reserved);
  return {
    name,
    expects: `a JSON array of {"id","issuer","clientId","clientSecret","name"} objects (ids other than ${reserved.join(', ')})`,
    doc,
    secret: true,
    parse: (raw) => parseOidcProviders(raw, taken),
    fallback: () => [],
  };
}
