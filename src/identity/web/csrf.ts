import { createHmac } from 'node:crypto';
import { safeEqual } from '../../kit/crypto.ts';

/**
 * CSRF tokens bound to what the form acts on (an interaction, a login session), made with a key
 * derived from PLATFORM_SECRET_KEY: nothing to store, and a token for one interaction fails on another.
 */
export class CsrfTokens {
  private readonly key: Buffer;
  constructor(secretKey: Buffer) {
    this.key = createHmac('sha256', secretKey).update('identity.csrf').digest();
  }
  issue(binding: string): string {
    return createHmac('sha256', this.key).update(binding).digest('base64url');
  }
  verify(binding: string, token: unknown): boolean {
    return typeof token === 'string' && token.length > 0 && token.length < 100 && safeEqual(this.issue(binding), token);
  }
}
