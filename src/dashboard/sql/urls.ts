import { openSealedString, seal } from '../../kit/crypto.ts';
import type { DataSourceRow } from '../datasources/store.ts';
import { connectionUrlProblem } from './connection-url.ts';
import { DataSourceError, type DataSourceType } from './driver.ts';

export interface SourceUrlOptions {
  secretKey: Buffer;
  envPrefix: string;
  /** Where `connectionUrlEnv` names are looked up (process.env in the service). */
  env?: NodeJS.ProcessEnv | undefined;
}

type UrlColumns = Pick<DataSourceRow, 'id' | 'type' | 'connection_url_sealed' | 'connection_url_env'>;

const urlContext = (id: number) => `dashboard.datasource-url:${id}`;

/**
 * A data source's connection URL: sealed at rest bound to the source's id (AES-256-GCM with the platform key), or
 * named by an environment variable with the configured prefix. Sealing is for writes (the routes, provisioning);
 * `urlOf` is what running opens, once per version of the source (settings.ts).
 */
export class SourceUrls {
  private readonly options: SourceUrlOptions;

  constructor(options: SourceUrlOptions) {
    this.options = options;
  }

  get envPrefix(): string {
    return this.options.envPrefix;
  }

  seal(id: number, url: string): string {
    return seal(this.options.secretKey, url, urlContext(id));
  }

  /** The stored URL in clear (to compare or re-check it); undefined for a source that names an environment variable. */
  openSealed(row: UrlColumns): string | undefined {
    return row.connection_url_sealed
      ? openSealedString(this.options.secretKey, row.connection_url_sealed, urlContext(row.id))
      : undefined;
  }

  /** Why `name` cannot be a data source's connectionUrlEnv, or undefined. Never says anything about the value. */
  envNameProblem(name: string, type: DataSourceType): string | undefined {
    const prefix = this.options.envPrefix;
    if (!/^[A-Z_][A-Z0-9_]*$/.test(name))
      return 'must be an environment variable name (upper-case letters, digits, underscores)';
    if (!name.startsWith(prefix) || name.length === prefix.length)
      return `must name an environment variable starting with ${prefix}`;
    const value = this.env[name];
    if (value === undefined || value === '') return `environment variable ${name} is not set on this instance`;
    if (connectionUrlProblem(type, value))
      return `environment variable ${name} does not hold a connection URL for a ${type} data source`;
    return undefined;
  }

  /** The URL to connect with; a DataSourceError ('connect') when the named variable is missing or wrong here. */
  urlOf(row: UrlColumns): string {
    const sealed = this.openSealed(row);
    if (sealed !== undefined) return sealed;
    const name = row.connection_url_env ?? '';
    const problem = this.envNameProblem(name, row.type);
    if (problem) throw new DataSourceError('connect', problem);
    return this.env[name]!;
  }

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }
}
