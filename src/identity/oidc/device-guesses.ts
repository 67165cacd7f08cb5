import Provider from 'oidc-provider';
import type { Throttle } from '../../kit/throttle.ts';
import type { OidcProvider } from './provider.ts';

/** A client address typing too many unknown user codes: the code page says how long to wait (429). */
export class TooManyGuessesError extends Error {
  readonly wait: number;
  readonly status = 429;
  readonly statusCode = 429;
  readonly expose = true;
  constructor(wait: number) {
    // The provider's error body names `message` as the error.
    super('slow_down');
    this.name = 'TooManyGuessesError';
    this.wait = wait;
  }
}

/**
 * RFC 8628 section 5.1: user codes are short enough to guess, so unknown codes typed on the code page count against the
 * client address (the kit's throttle: a few free, then a doubling wait), and while it waits no code is looked up.
 */
export function limitCodeGuesses(provider: OidcProvider, throttle: Throttle): void {
  const findByUserCode = provider.DeviceCode.findByUserCode.bind(provider.DeviceCode);
  provider.DeviceCode.findByUserCode = (async (userCode: string, options?: { ignoreExpiration?: boolean }) => {
    const key = [`device-code:${Provider.ctx?.ip ?? 'unknown'}`];
    const wait = await throttle.waitSeconds(key);
    if (wait > 0) throw new TooManyGuessesError(wait);
    const code = await findByUserCode(userCode, options);
    if (!code) await throttle.fail(key);
    return code;
  }) as typeof provider.DeviceCode.findByUserCode;
}
