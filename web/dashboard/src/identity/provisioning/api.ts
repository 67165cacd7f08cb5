/** SCIM connections as the console reads them (src/identity/scim/connection-routes.ts). */
export interface ApiScimConnection {
  id: string;
  name: string;
  /** The token's first characters: identity keeps only its SHA-256. */
  token_prefix: string;
  /** The SCIM base URL to give the directory. */
  base_url: string;
  created_at: string;
  token_created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  /** The people it provisioned and has not deleted. */
  people: number;
  /** Whether an email someone already signs in with links that person to the connection instead of a 409. */
  adopt_existing: boolean;
}

/** A connection made or given a new token: the token is in this answer only. */
export interface ApiScimToken {
  connection: ApiScimConnection;
  token: string;
}
