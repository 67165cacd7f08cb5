import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Redis } from 'ioredis';
import { sha256Hex } from '../../kit/crypto.ts';
import type { OidcProvider } from './provider.ts';

/**
 * RFC 8628 section 3.5: a device polls the token endpoint no faster than `interval` seconds; a poll sooner than that
 * after its previous one is answered `slow_down` (oidc-provider answers `authorization_pending` to every poll, however
 * fast). One key per device code (its SHA-256), shared by every instance through Redis when configured.
 */
export interface PollPace {
  /** Seconds a device must wait between polls (the device authorization answer's `interval`). */
  readonly intervalSeconds: number;
  /** True when this device code was polled less than the interval ago; either way the poll counts as the latest. */
  tooSoon(deviceCode: string): Promise<boolean>;
}

export function memoryPollPace(intervalSeconds: number): PollPace {
  const last = new Map<string, number>();
  const ms = intervalSeconds * 1000;
  return {
    intervalSeconds,
    async tooSoon(deviceCode) {
      const now = Date.now();
      if (last.size > 10_000) for (const [k, t] of last) if (now - t >= ms) last.delete(k);
      const key = sha256Hex(deviceCode);
      const previous = last.get(key);
      last.set(key, now);
      return previous !== undefined && now - previous < ms;
    },
  };
}

export function redisPollPace(redis: Redis, intervalSeconds: number): PollPace {
  return {
    intervalSeconds,
    async tooSoon(deviceCode) {
      const key = `identity:device-poll:${sha256Hex(deviceCode)}`;
      // Set for one interval unless already set: already set means the previous poll was less than an interval ago.
      const set = await redis.set(key, '1', 'PX', intervalSeconds * 1000, 'NX');
      if (set !== null) return false;
      await redis.pexpire(key, intervalSeconds * 1000);
      return true;
    },
  };
}

/**
 * Installs the pace on a provider: the device authorization answer names the interval, and the token endpoint's look-up
 * of a device code answers `slow_down` to a poll that came too soon (before the code is even read, so a fast poller
 * learns nothing else).
 */
export function enforcePollPace(provider: OidcProvider, pace: PollPace): void {
  provider.on('device_authorization.success', (_ctx: KoaContextWithOIDC, body: Record<string, unknown>) => {
    body.interval = pace.intervalSeconds;
  });
  const find = provider.DeviceCode.find.bind(provider.DeviceCode);
  provider.DeviceCode.find = (async (id: string, options?: { ignoreExpiration?: boolean }) => {
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route === 'token' && typeof id === 'string' && (await pace.tooSoon(id))) {
      throw new errors.SlowDown();
    }
    return find(id, options);
  }) as typeof provider.DeviceCode.find;
}
