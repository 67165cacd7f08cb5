import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError } from './config.ts';

/**
 * The key that encrypts secrets at rest. Production must configure it; on a developer's machine one is
 * generated into the data folder so `npm start` works with no setup (and is as safe as the data beside it).
 */
export function resolveSecretKey(configured: Buffer, dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  if (configured.length === 32) return configured;
  if (env.NODE_ENV === 'production')
    throw new ConfigError(
      'PLATFORM_SECRET_KEY',
      'PLATFORM_SECRET_KEY is required when NODE_ENV=production: expected a 256-bit key: 64 hex characters or 32 bytes in base64',
    );
  const path = join(dataDir, 'secret.key');
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
    if (key.length !== 32)
      throw new ConfigError(
        'PLATFORM_SECRET_KEY',
        `${path} does not hold a 256-bit hex key; set PLATFORM_SECRET_KEY or remove the file`,
      );
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(path, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another service of the same process or a parallel start wrote it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return resolveSecretKey(configured, dataDir, env);
    throw err;
  }
  chmodSync(path, 0o600);
  return key;
}
