import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { randomToken, safeEqual, sha256Hex } from '../../kit/crypto.ts';
import { ACCOUNT_CLIENT_ID, CALLBACK_PATH } from '../apps/built-in-clients.ts';
import { readCookie } from '../web/cookies.ts';

const FLOW_COOKIE = '__Host-svc_signin';
const FLOW_TTL_SECONDS = 3600;

/** The sign-in round trip: started by /signin, ended by the callback, bound to the browser by a signed cookie. */
export class SignInFlow {
  private readonly key: Buffer;
  private readonly issuer: string;
  constructor(secretKey: Buffer, issuer: string) {
    this.key = createHmac('sha256', secretKey).update('identity.account-signin').digest();
    this.issuer = issuer;
  }
  private mac(state: string, returnTo: string): string {
    return createHmac('sha256', this.key).update(`${state}\n${returnTo}`).digest('base64url');
  }

  /** Where to send the browser, and the cookie that remembers where it comes back to. */
  start(returnTo: string, loginHint: string | undefined): { location: string; cookie: string } {
    const state = randomToken(24);
    const url = new URL('/oauth/authorize', this.issuer);
    url.search = new URLSearchParams({
      client_id: ACCOUNT_CLIENT_ID,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: new URL(CALLBACK_PATH, this.issuer).href,
      state,
      // PKCE is required of a public client; the verifier is not kept because the code is never exchanged.
      code_challenge: createHmac('sha256', randomToken(32)).digest('base64url'),
      code_challenge_method: 'S256',
      // Signing in here always means signing in (possibly as someone else), even with a live session.
      prompt: 'login',
      ...(loginHint ? { login_hint: loginHint } : {}),
    }).toString();
    const value = `${state}.${Buffer.from(returnTo).toString('base64url')}.${this.mac(state, returnTo)}`;
    return {
      location: url.pathname + url.search,
      cookie: `${FLOW_COOKIE}=${value}; Path=/; Max-Age=${FLOW_TTL_SECONDS}; HttpOnly; Secure; SameSite=Lax`,
    };
  }

  /** Where the browser was going, when the callback's state is the one this browser started with. */
  finish(request: FastifyRequest, state: string | undefined): string | undefined {
    const value = readCookie(request.headers.cookie, FLOW_COOKIE);
    if (!value || !state || value.length > 3000) return undefined;
    const [cookieState, encoded, mac] = value.split('.');
    if (!cookieState || encoded === undefined || !mac) return undefined;
    const returnTo = Buffer.from(encoded, 'base64url').toString('utf8');
    if (!safeEqual(sha256Hex(cookieState), sha256Hex(state)) || !safeEqual(this.mac(cookieState, returnTo), mac))
      return undefined;
    return returnTo;
  }

  clearedCookie(): string {
    return `${FLOW_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
  }
}
