import type { Queryable } from '../../../kit/db.ts';
import { openSealedString, randomToken, seal } from '../../../kit/crypto.ts';
import { isoUtc } from '../../../kit/sql.ts';
import { isBlank } from '../../../kit/names.ts';
import type { PageRequest, Positioned } from '../../../kit/paging.ts';
import { checkBaseUrl, openBaseUrl, redactBaseUrl, sealBaseUrl } from './base-url.ts';
import { refuseInternalUrl } from './address-check.ts';
import type { ForwardingGuard } from '../guard.ts';
import { DestinationConflictError, DestinationInputError, DestinationNotFoundError } from './errors.ts';
import { isDestinationKind, KINDS, type DestinationKind } from '../vendors/index.ts';
import type { DestinationTarget } from '../vendors/types.ts';

/** A destination as the admin API shows it: never its credentials, only the names of the ones it holds. */
export interface DestinationView {
  id: string;
  project_id: string;
  name: string;
  kind: DestinationKind;
  /** Only scheme, host and port (`/…` when there is more): the whole URL may be a secret. */
  base_url: string;
  settings: Record<string, unknown>;
  credential_fields: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
  pending: number;
  dead_letters: number;
}

export { checkBaseUrl, DestinationConflictError, DestinationInputError, DestinationNotFoundError };

const VIEW_COLUMNS = `d.id, d.project_id, d.name, d.kind, d.base_url, d.settings, d.credential_fields, d.enabled,
  ${isoUtc('d.created_at')} AS created_at, ${isoUtc('d.updated_at')} AS updated_at,
  (SELECT count(*) FROM outbox o WHERE o.destination_id = d.id) AS pending,
  (SELECT count(*) FROM dead_letters l WHERE l.destination_id = d.id) AS dead_letters`;

/** Credentials are sealed bound to the destination id, so a ciphertext moved to another row does not open. */
function sealContext(id: string): string {
  return `ingest.destination:${id}`;
}

export interface NewDestination {
  projectId: string;
  name: string;
  kind: string;
  baseUrl?: string | undefined;
  credentials?: Record<string, unknown> | undefined;
  settings?: Record<string, unknown> | undefined;
  enabled?: boolean | undefined;
}

/**
 * A URL given for any kind is refused when it points at the internal network; a vendor's default public host is
 * not looked up (deliveries still go through the guard).
 */
export async function createDestination(
  db: Queryable,
  key: Buffer,
  input: NewDestination,
  guard: ForwardingGuard,
): Promise<{ destination: DestinationView; shownOnce: Record<string, string> | undefined }> {
  if (isBlank(input.name)) throw new DestinationInputError('name: must not be blank');
  if (!isDestinationKind(input.kind))
    throw new DestinationInputError(`kind: must be one of ${Object.keys(KINDS).join(', ')}`);
  const kind = KINDS[input.kind];
  const rawUrl = input.baseUrl ?? kind.defaultBaseUrl;
  if (!rawUrl) throw new DestinationInputError(`base_url: required for ${input.kind} destinations`);
  const baseUrl = checkBaseUrl(rawUrl);
  if (input.baseUrl !== undefined) await refuseInternalUrl(baseUrl, guard);
  const settings = input.settings ?? {};
  let prepared: ReturnType<typeof kind.prepare>;
  try {
    prepared = kind.prepare(input.credentials ?? {}, settings);
  } catch (err) {
    throw new DestinationInputError((err as Error).message);
  }
  const id = `dst_${randomToken(12)}`;
  const sealed = seal(key, JSON.stringify(prepared.credentials), sealContext(id));
  const project = await db.query('SELECT 1 FROM projects WHERE id = $1', [input.projectId]);
  if (project.rowCount === 0) throw new DestinationNotFoundError(`no project ${input.projectId}`);
  const inserted = await db.query(
    `INSERT INTO destinations (id, project_id, name, kind, base_url, base_url_sealed, settings, credentials_sealed, credential_fields, enabled)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (project_id, name) DO NOTHING RETURNING id`,
    [
      id,
      input.projectId,
      input.name,
      input.kind,
      redactBaseUrl(baseUrl),
      sealBaseUrl(key, id, baseUrl),
      JSON.stringify(settings),
      sealed,
      Object.keys(prepared.credentials),
      input.enabled ?? true,
    ],
  );
  if (inserted.rowCount === 0)
    throw new DestinationConflictError(
      `project ${input.projectId} already has a destination named ${JSON.stringify(input.name)}`,
    );
  return { destination: (await getDestination(db, id))!, shownOnce: prepared.shownOnce };
}

// A row written before URLs were sealed still holds its URL in clear until sealed: redact it on the way out too.
const shown = (d: DestinationView): DestinationView => ({ ...d, base_url: redactBaseUrl(d.base_url) });

export async function getDestination(db: Queryable, id: string): Promise<DestinationView | undefined> {
  const row = (await db.query<DestinationView>(`SELECT ${VIEW_COLUMNS} FROM destinations d WHERE d.id = $1`, [id]))
    .rows[0];
  return row && shown(row);
}

/** Destinations (of one project, or all) in creation order; every one without `page`. */
export async function listDestinations(
  db: Queryable,
  projectId?: string,
  page?: PageRequest,
): Promise<Positioned<DestinationView>[]> {
  const { rows } = await db.query<DestinationView & { sort_at: string }>(
    `SELECT ${VIEW_COLUMNS}, d.created_at::text AS sort_at FROM destinations d
      WHERE ($1::text IS NULL OR d.project_id = $1) AND ($2::timestamptz IS NULL OR (d.created_at, d.id) > ($2::timestamptz, $3::text))
      ORDER BY d.project_id, d.created_at, d.id LIMIT $4`,
    [projectId ?? null, page?.after?.[0] ?? null, page?.after?.[1] ?? null, page?.limit ?? null],
  );
  return rows.map(({ sort_at, ...d }) => ({ ...shown(d), position: [sort_at, d.id] }));
}

export interface DestinationChanges {
  name?: string | undefined;
  enabled?: boolean | undefined;
  baseUrl?: string | undefined;
  credentials?: Record<string, unknown> | undefined;
  settings?: Record<string, unknown> | undefined;
}

/**
 * Changes a destination; new credentials replace the old ones whole and are checked like at creation. A webhook given
 * credentials without a `secret` gets a new generated one, returned as `secret` (the only time it is shown), as at creation.
 * A new URL on the internal network is refused as at creation.
 */
export async function updateDestination(
  db: Queryable,
  key: Buffer,
  id: string,
  changes: DestinationChanges,
  guard: ForwardingGuard,
): Promise<DestinationView & { secret?: string }> {
  const current = (
    await db.query<{ kind: string; settings: Record<string, unknown>; credentials_sealed: string }>(
      'SELECT kind, settings, credentials_sealed FROM destinations WHERE id = $1',
      [id],
    )
  ).rows[0];
  if (!current) throw new DestinationNotFoundError(`no destination ${id}`);
  const sets: string[] = [];
  const params: unknown[] = [id];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (changes.name !== undefined) {
    if (isBlank(changes.name)) throw new DestinationInputError('name: must not be blank');
    set('name', changes.name);
  }
  if (changes.enabled !== undefined) set('enabled', changes.enabled);
  if (changes.baseUrl !== undefined) {
    const baseUrl = checkBaseUrl(changes.baseUrl);
    await refuseInternalUrl(baseUrl, guard);
    set('base_url', redactBaseUrl(baseUrl));
    set('base_url_sealed', sealBaseUrl(key, id, baseUrl));
  }
  const settings = changes.settings ?? current.settings;
  let shownOnce: Record<string, string> | undefined;
  if (changes.settings !== undefined) set('settings', JSON.stringify(changes.settings));
  if (changes.credentials !== undefined || changes.settings !== undefined) {
    // New settings are checked with the credentials they will go with, as at creation: a mixpanel service account
    // needs settings.project_id, amplitude's min_id_length is a positive integer.
    const credentials =
      changes.credentials ??
      (JSON.parse(openSealedString(key, current.credentials_sealed, sealContext(id))) as Record<string, string>);
    let prepared: ReturnType<(typeof KINDS)[DestinationKind]['prepare']>;
    try {
      prepared = KINDS[current.kind as DestinationKind].prepare(credentials, settings);
    } catch (err) {
      throw new DestinationInputError((err as Error).message);
    }
    if (changes.credentials !== undefined) {
      set('credentials_sealed', seal(key, JSON.stringify(prepared.credentials), sealContext(id)));
      set('credential_fields', Object.keys(prepared.credentials));
      shownOnce = prepared.shownOnce;
    }
  }
  if (sets.length > 0) {
    // A change (new credentials, re-enabled) lifts a pause taken after failures, so the next attempt tells.
    sets.push('updated_at = now()', 'not_before = NULL', 'failures = 0');
    try {
      await db.query(`UPDATE destinations SET ${sets.join(', ')} WHERE id = $1`, params);
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw new DestinationConflictError(
          `the project already has a destination named ${JSON.stringify(changes.name)}`,
        );
      throw err;
    }
  }
  const view = (await getDestination(db, id))!;
  return shownOnce?.secret ? { ...view, secret: shownOnce.secret } : view;
}

/** Deletes a destination with its pending entries and dead letters. */
export async function deleteDestination(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM destinations WHERE id = $1', [id])).rowCount > 0;
}

/** A destination as the delivery worker sends to it: credentials opened, with its count of consecutive failed rounds. */
export interface DeliveryTarget extends DestinationTarget {
  kind: DestinationKind;
  failures: number;
}

/**
 * What the delivery worker needs of an enabled destination, credentials opened; `paused` takes a disabled one too
 * (a test send from the console works on a paused destination).
 */
export async function loadTarget(
  db: Queryable,
  key: Buffer,
  id: string,
  options: { paused?: boolean } = {},
): Promise<DeliveryTarget | undefined> {
  const row = (
    await db.query<{
      id: string;
      kind: DestinationKind;
      base_url: string;
      base_url_sealed: string | null;
      settings: Record<string, unknown>;
      credentials_sealed: string;
      failures: number;
    }>(
      'SELECT id, kind, base_url, base_url_sealed, settings, credentials_sealed, failures FROM destinations WHERE id = $1 AND (enabled OR $2)',
      [id, options.paused === true],
    )
  ).rows[0];
  if (!row) return undefined;
  const credentials = JSON.parse(openSealedString(key, row.credentials_sealed, sealContext(row.id))) as Record<
    string,
    string
  >;
  let baseUrl: string;
  if (row.base_url_sealed === null) {
    baseUrl = row.base_url;
    await sealPlainBaseUrl(db, key, row.id, row.base_url);
  } else {
    baseUrl = openBaseUrl(key, row.id, row.base_url_sealed);
  }
  return { id: row.id, kind: row.kind, baseUrl, settings: row.settings, credentials, failures: row.failures };
}

/**
 * Seals the URL of a row written before URLs were sealed. Only if the row is still as read: an update or another
 * instance sealing it meanwhile wins, and the plain URL is never lost (it is replaced in the same statement).
 */
async function sealPlainBaseUrl(db: Queryable, key: Buffer, id: string, plain: string): Promise<boolean> {
  const updated = await db.query(
    'UPDATE destinations SET base_url = $2, base_url_sealed = $3 WHERE id = $1 AND base_url_sealed IS NULL AND base_url = $4',
    [id, redactBaseUrl(plain), sealBaseUrl(key, id, plain), plain],
  );
  return updated.rowCount > 0;
}

/** Seals every URL still kept in clear (rows from before migration 004); run when an instance starts. Returns how many. */
export async function sealPlainBaseUrls(db: Queryable, key: Buffer): Promise<number> {
  const rows = (
    await db.query<{ id: string; base_url: string }>(
      'SELECT id, base_url FROM destinations WHERE base_url_sealed IS NULL',
    )
  ).rows;
  let sealed = 0;
  for (const row of rows) if (await sealPlainBaseUrl(db, key, row.id, row.base_url)) sealed++;
  return sealed;
}
