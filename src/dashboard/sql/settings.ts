import type { DataSourceRow } from '../datasources/store.ts';
import type { ConnectionSettings } from './driver.ts';
import { fingerprintOf } from './pool-registry.ts';
import type { SourceUrls } from './urls.ts';

export type SettingsColumns = Pick<
  DataSourceRow,
  | 'id'
  | 'version'
  | 'type'
  | 'connection_url_sealed'
  | 'connection_url_env'
  | 'ssl_enabled'
  | 'max_connections'
  | 'query_timeout_seconds'
  | 'read_only'
>;

/** A source's settings as opened for one version of its row, with the fingerprint its pool is compared by. */
export interface OpenedSettings {
  readonly version: number;
  readonly settings: ConnectionSettings;
  readonly fingerprint: string;
}

/** Opens a source's connection settings: its URL in clear (decrypted, or read from the named variable). */
export type SettingsOpener = (row: SettingsColumns) => ConnectionSettings;

export function settingsOpener(urls: SourceUrls): SettingsOpener {
  return (row) => ({
    url: urls.urlOf(row),
    sslEnabled: row.ssl_enabled,
    maxConnections: row.max_connections,
    queryTimeoutSeconds: row.query_timeout_seconds,
    readOnly: row.read_only,
    applicationName: `platform-dashboard ds:${row.id}`,
  });
}

/**
 * The settings of each source, opened once per version of its row rather than at every query. Every change of a
 * source gives its row a new version (on whichever instance makes it), so an entry of an earlier version is never
 * used: the next run opens the new one. An entry is only replaced by a newer version, so a request that read the row
 * just before a change does not put the older settings back.
 */
export class SettingsCache {
  private readonly open: SettingsOpener;
  private readonly entries = new Map<number, OpenedSettings>();

  constructor(open: SettingsOpener) {
    this.open = open;
  }

  of(row: SettingsColumns): OpenedSettings {
    const cached = this.entries.get(row.id);
    if (cached?.version === row.version) return cached;
    const settings = this.open(row);
    const opened = { version: row.version, settings, fingerprint: fingerprintOf(row.type, settings) };
    if (!cached || cached.version < row.version) this.entries.set(row.id, opened);
    return opened;
  }

  /** Drops a source's settings (it changed or is gone). */
  drop(id: number): void {
    this.entries.delete(id);
  }

  clear(): void {
    this.entries.clear();
  }
}
