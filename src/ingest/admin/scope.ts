/** The scope an identity access token needs for ingest's admin API (the service's own admin token has every scope). */
export const INGEST_ADMIN_SCOPE = 'ingest:admin';
