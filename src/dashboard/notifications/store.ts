import type { Queryable } from '../../kit/db.ts';

export type ChannelKind = 'email' | 'webhook' | 'slack';
export const CHANNEL_KINDS = ['email', 'webhook', 'slack'] as const satisfies readonly ChannelKind[];

export interface ChannelRow {
  id: number;
  tenant_id: number;
  name: string;
  kind: ChannelKind;
  addresses: string[];
  url_sealed: string | null;
  url_origin: string | null;
  secret_sealed: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id::int AS id, tenant_id::int AS tenant_id, name, kind, addresses, url_sealed, url_origin, secret_sealed, created_at, updated_at`;

export class ChannelNameTaken extends Error {}

const taken = (err: unknown): never => {
  if ((err as { code?: string }).code === '23505')
    throw new ChannelNameTaken('a channel with this name exists already');
  throw err;
};

export async function getChannel(db: Queryable, tenantId: number, id: number): Promise<ChannelRow | undefined> {
  const r = await db.query<ChannelRow>(
    `SELECT ${COLUMNS} FROM notification_channels WHERE tenant_id = $1 AND id = $2`,
    [tenantId, id],
  );
  return r.rows[0];
}

export async function listChannels(db: Queryable, tenantId: number): Promise<ChannelRow[]> {
  const r = await db.query<ChannelRow>(
    `SELECT ${COLUMNS} FROM notification_channels WHERE tenant_id = $1 ORDER BY name, id LIMIT 500`,
    [tenantId],
  );
  return r.rows;
}

/** The ids among `ids` that are not channels of the tenant. */
export async function unknownChannels(db: Queryable, tenantId: number, ids: number[]): Promise<number[]> {
  const r = await db.query<{ id: number }>(
    `SELECT id::int AS id FROM notification_channels WHERE tenant_id = $1 AND id = ANY($2::bigint[])`,
    [tenantId, ids],
  );
  const known = new Set(r.rows.map((x) => x.id));
  return ids.filter((id) => !known.has(id));
}

export interface ChannelFields {
  name: string;
  kind: ChannelKind;
  addresses: string[];
  urlSealed: string | null;
  urlOrigin: string | null;
  secretSealed: string | null;
}

export async function insertChannel(
  db: Queryable,
  tenantId: number,
  createdBy: number,
  f: ChannelFields,
): Promise<ChannelRow> {
  const r = await db
    .query<ChannelRow>(
      `INSERT INTO notification_channels (tenant_id, name, kind, addresses, url_sealed, url_origin, secret_sealed, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [tenantId, f.name, f.kind, f.addresses, f.urlSealed, f.urlOrigin, f.secretSealed, createdBy],
    )
    .catch(taken);
  return r.rows[0]!;
}

/** Changes the name, addresses or URL; the kind and the webhook secret stay. */
export async function updateChannel(
  db: Queryable,
  id: number,
  f: Pick<ChannelFields, 'name' | 'addresses' | 'urlSealed' | 'urlOrigin'>,
): Promise<ChannelRow> {
  const r = await db
    .query<ChannelRow>(
      `UPDATE notification_channels SET name = $2, addresses = $3, url_sealed = $4, url_origin = $5, updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, f.name, f.addresses, f.urlSealed, f.urlOrigin],
    )
    .catch(taken);
  return r.rows[0]!;
}

export async function deleteChannel(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM notification_channels WHERE id = $1', [id]);
}
