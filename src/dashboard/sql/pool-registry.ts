import { createHash } from 'node:crypto';
import type { ConnectionSettings, DataSourcePool, DataSourceType, Driver } from './driver.ts';

interface Entry {
  fingerprint: string;
  pool: DataSourcePool;
}

/** What a pool is compared by: the type and every connection setting, hashed into one short value. */
export function fingerprintOf(type: DataSourceType, s: ConnectionSettings): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        type,
        s.url,
        s.sslEnabled,
        s.maxConnections,
        s.queryTimeoutSeconds,
        s.readOnly,
        s.applicationName,
      ]),
    )
    .digest('hex');
}

/**
 * One pool per data source, opened on first use. The settings' fingerprint is compared on every use: when the
 * connection settings changed (on this instance or another one sharing the database), the old pool is closed and a
 * new one opened. The service passes the fingerprint its settings were opened with (settings.ts), so nothing is
 * hashed per query.
 */
export class PoolRegistry {
  private readonly drivers: Record<DataSourceType, Driver>;
  private readonly pools = new Map<number, Entry>();

  constructor(drivers: Record<DataSourceType, Driver>) {
    this.drivers = drivers;
  }

  driver(type: DataSourceType): Driver {
    return this.drivers[type];
  }

  pool(
    id: number,
    type: DataSourceType,
    settings: ConnectionSettings,
    fp = fingerprintOf(type, settings),
  ): DataSourcePool {
    const existing = this.pools.get(id);
    if (existing?.fingerprint === fp) return existing.pool;
    if (existing) void existing.pool.close().catch(() => {});
    const pool = this.drivers[type].open(settings);
    this.pools.set(id, { fingerprint: fp, pool });
    return pool;
  }

  /** Closes the data source's pool, waiting for its connections to end (delete, settings change). */
  async close(id: number): Promise<void> {
    const entry = this.pools.get(id);
    if (!entry) return;
    this.pools.delete(id);
    await entry.pool.close().catch(() => {});
  }

  async closeAll(): Promise<void> {
    const entries = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(entries.map((e) => e.pool.close().catch(() => {})));
  }

  /** How many pools are open (for tests and metrics). */
  get size(): number {
    return this.pools.size;
  }
}
