import { openSealedString, seal } from '../../kit/crypto.ts';
import type { Database, Queryable } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { isoUtc } from '../../kit/sql.ts';

/** An organization's OpenID Connect connector as the API shows it: never the client secret, only whether one is set. */
export interface Connector {
  organization_id: string;
  issuer: string;
  client_id: string;
  has_client_secret: boolean;
  domains: string[];
  created_at: string;
  updated_at: string;
}

/** What the sign-in side needs: the secret opened. */
export interface ConnectorSecrets {
  organizationId: string;
  organizationName: string;
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  domains: string[];
}

/** Bound to the organization: a sealed secret copied to another organization's row opens nowhere. */
const sealContext = (organizationId: string) => `identity.enterprise_sso:${organizationId}`;

const SELECT = `SELECT c.organization_id, c.issuer, c.client_id, c.client_secret_sealed IS NOT NULL AS has_client_secret,
  coalesce((SELECT array_agg(d.domain ORDER BY d.domain) FROM enterprise_sso_domains d WHERE d.organization_id = c.organization_id), '{}') AS domains,
  ${isoUtc('c.created_at')} AS created_at, ${isoUtc('c.updated_at')} AS updated_at FROM enterprise_sso_connectors c`;

export async function findConnector(db: Queryable, organizationId: string): Promise<Connector | undefined> {
  return (await db.query<Connector>(`${SELECT} WHERE c.organization_id = $1`, [organizationId])).rows[0];
}

export interface ConnectorInput {
  issuer: string;
  clientId: string;
  /** Absent: the secret kept as it is; null: removed (a public client). */
  clientSecret: string | null | undefined;
  domains: string[];
}

/**
 * Sets the organization's connector and replaces its domains in one transaction. A domain another organization holds is
 * 409 (the domains' primary key decides, so two admins claiming one domain at once cannot both win).
 */
export async function putConnector(
  db: Database,
  key: Buffer,
  organizationId: string,
  input: ConnectorInput,
): Promise<Connector> {
  const sealed =
    input.clientSecret === undefined
      ? undefined
      : input.clientSecret === null
        ? null
        : seal(key, input.clientSecret, sealContext(organizationId));
  return db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO enterprise_sso_connectors (organization_id, issuer, client_id, client_secret_sealed)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id) DO UPDATE SET issuer = $2, client_id = $3,
         client_secret_sealed = CASE WHEN $5 THEN enterprise_sso_connectors.client_secret_sealed ELSE $4 END,
         updated_at = now()`,
      [organizationId, input.issuer, input.clientId, sealed ?? null, sealed === undefined],
    );
    const taken = await tx.query<{ domain: string }>(
      'SELECT domain FROM enterprise_sso_domains WHERE domain = ANY($1) AND organization_id <> $2',
      [input.domains, organizationId],
    );
    if (taken.rows[0])
      throw new HttpError(409, 'CONFLICT', `domains: ${taken.rows[0].domain} is bound to another organization`);
    await tx.query('DELETE FROM enterprise_sso_domains WHERE organization_id = $1 AND NOT (domain = ANY($2))', [
      organizationId,
      input.domains,
    ]);
    await tx.query(
      `INSERT INTO enterprise_sso_domains (domain, organization_id) SELECT unnest($1::text[]), $2
       ON CONFLICT (domain) DO NOTHING`,
      [input.domains, organizationId],
    );
    const again = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM enterprise_sso_domains WHERE domain = ANY($1) AND organization_id = $2',
      [input.domains, organizationId],
    );
    // Another organization took one of them between the check and the insert.
    if (again.rows[0]!.n !== input.domains.length)
      throw new HttpError(409, 'CONFLICT', 'domains: one of them was bound to another organization meanwhile');
    return (await findConnector(tx, organizationId))!;
  });
}

export async function deleteConnector(db: Queryable, organizationId: string): Promise<boolean> {
  return (
    ((await db.query('DELETE FROM enterprise_sso_connectors WHERE organization_id = $1', [organizationId])).rowCount ??
      0) > 0
  );
}

/** The connector an email domain is bound to (of an active organization), its secret opened; undefined when none. */
export async function connectorOfDomain(
  db: Queryable,
  key: Buffer,
  domain: string,
): Promise<ConnectorSecrets | undefined> {
  const r = await db.query<{ organization_id: string }>(
    `SELECT d.organization_id FROM enterprise_sso_domains d JOIN organizations o ON o.id = d.organization_id
     WHERE d.domain = $1 AND o.active`,
    [domain.toLowerCase()],
  );
  return r.rows[0] ? connectorSecrets(db, key, r.rows[0].organization_id) : undefined;
}

export async function connectorSecrets(
  db: Queryable,
  key: Buffer,
  organizationId: string,
): Promise<ConnectorSecrets | undefined> {
  const r = await db.query<{
    issuer: string;
    client_id: string;
    client_secret_sealed: string | null;
    name: string;
    domains: string[];
  }>(
    `SELECT c.issuer, c.client_id, c.client_secret_sealed, o.name,
       coalesce((SELECT array_agg(d.domain) FROM enterprise_sso_domains d WHERE d.organization_id = c.organization_id), '{}') AS domains
     FROM enterprise_sso_connectors c JOIN organizations o ON o.id = c.organization_id
     WHERE c.organization_id = $1 AND o.active`,
    [organizationId],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return {
    organizationId,
    organizationName: row.name,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: row.client_secret_sealed
      ? openSealedString(key, row.client_secret_sealed, sealContext(organizationId))
      : undefined,
    domains: row.domains,
  };
}
