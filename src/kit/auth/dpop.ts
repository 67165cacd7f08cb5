import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { EmbeddedJWK, calculateJwkThumbprint, jwtVerify, type JWK } from 'jose';
import { HttpError } from '../errors.ts';
import { memoryProofIds, type ProofIds } from './dpop-replay.ts';

/**
 * The algorithms a DPoP proof may be signed with: identity advertises exactly these
 * (`dpop_signing_alg_values_supported`), and every resource server of the platform accepts exactly these.
 */
export const DPOP_ALGS = ['ES256', 'EdDSA', 'PS256', 'RS256'] as const;

/** How far a proof's `iat` may be from the server's clock, in seconds (identity's token endpoint uses the same). */
export const DPOP_IAT_WINDOW_SECONDS = 300;

/** Said in the OpenAPI description of every security scheme that takes identity's access tokens. */
export const DPOP_SCHEME_NOTE = `A DPoP-bound access token (RFC 9449) goes as \`Authorization: DPoP <token>\` with a \`DPoP\` header holding a proof by its key for the request (${DPOP_ALGS.join(', ')}); sent as Bearer it is refused (401).`;

/** An access token as the caller presented it in `Authorization`. */
export interface PresentedToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
}

const AUTHORIZATION = /^(Bearer|DPoP)[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;

/** `Authorization: Bearer <token>` or `Authorization: DPoP <token>` (RFC 6750 / RFC 9449 §7.1); undefined for anything else. */
export function presentedToken(header: string | undefined): PresentedToken | undefined {
  const m = typeof header === 'string' ? AUTHORIZATION.exec(header) : null;
  if (!m) return undefined;
  return { scheme: m[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: m[2]! };
}

export interface DpopCheckOptions {
  /** The service's realm, named in `WWW-Authenticate`. */
  realm: string;
  /**
   * The service's public base URL as clients reach it (behind a proxy, the proxy's); a proof's `htu` must be this
   * plus the request's path. Unset: the request's own scheme and `Host`.
   */
  publicUrl?: string | undefined;
  /** Where seen proof ids are kept: this process's memory by default (`redisProofIds` shares them through Redis). */
  proofIds?: ProofIds | undefined;
}

/**
 * A resource server's side of RFC 9449 (§7): given the token a request presented and the key thumbprint the token is
 * bound to (`jkt`, from the token's verifier; undefined for an unbound token), admits the request or throws 401.
 * - an unbound token must come as `Bearer` (a `DPoP` scheme with an unbound token is refused);
 * - a bound token must come as `DPoP` with one `DPoP` header holding a proof signed by the bound key for this
 *   request's method and URL, issued within `DPOP_IAT_WINDOW_SECONDS`, carrying the token's hash (`ath`) and a `jti`
 *   this process has not seen within the window.
 * Seen `jti`s live in this process's memory unless `proofIds` shares them (Redis): with several instances and memory
 * only, a proof replayed to another instance within the window is not caught there.
 */
export interface DpopCheck {
  check(request: FastifyRequest, presented: PresentedToken, jkt: string | undefined): Promise<void>;
}

export function dpopCheck(options: DpopCheckOptions): DpopCheck {
  const realm = options.realm.replace(/["\\]/g, '');
  const algs = DPOP_ALGS.join(' ');
  const base = options.publicUrl?.replace(/\/+$/, '');
  const seen = options.proofIds ?? memoryProofIds();

  const refuse = (error: 'invalid_token' | 'invalid_dpop_proof', message: string) =>
    new HttpError(401, 'UNAUTHORIZED', message, {
      headers: { 'www-authenticate': `DPoP realm="${realm}", error="${error}", algs="${algs}"` },
    });
  const badProof = (why: string) => refuse('invalid_dpop_proof', `the DPoP proof is invalid: ${why}`);

  const expectedUrl = (request: FastifyRequest) => {
    const path = request.url.split(/[?#]/, 1)[0]!;
    try {
      return new URL(`${base ?? `${request.protocol}://${request.host}`}${path}`).href;
    } catch {
      throw badProof('the request has no usable Host header to check htu against');
    }
  };

  return {
    async check(request, presented, jkt) {
      if (!jkt) {
        if (presented.scheme === 'DPoP')
          throw refuse('invalid_token', 'the access token is not DPoP-bound: send it as Authorization: Bearer <token>');
        return;
      }
      if (presented.scheme !== 'DPoP')
        throw refuse(
          'invalid_token',
          'the access token is DPoP-bound: send Authorization: DPoP <token> with a DPoP proof by its key',
        );
      const header = request.headers.dpop;
      // Node joins repeated headers with ", "; a compact JWS has no comma, so one means several proofs.
      if (Array.isArray(header)) throw badProof('send exactly one DPoP header');
      if (typeof header !== 'string' || header.length === 0) throw badProof('a DPoP header with a proof is required');
      if (header.includes(',')) throw badProof('send exactly one DPoP header');

      let payload: Record<string, unknown>;
      let jwk: JWK;
      try {
        const verified = await jwtVerify(header, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...DPOP_ALGS] });
        payload = verified.payload;
        jwk = verified.protectedHeader.jwk!;
      } catch (err) {
        throw badProof(`${(err as Error).message} (a dpop+jwt signed with ${algs} by the public jwk in its header)`);
      }
      if ((await calculateJwkThumbprint(jwk, 'sha256')) !== jkt)
        throw refuse('invalid_token', 'the DPoP proof is not signed by the key the access token is bound to');
      if (payload.htm !== request.method) throw badProof(`htm must be ${request.method}`);
      const expected = expectedUrl(request);
      if (typeof payload.htu !== 'string' || !sameUrl(payload.htu, expected)) throw badProof(`htu must be ${expected}`);
      const now = Math.floor(Date.now() / 1000);
      if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > DPOP_IAT_WINDOW_SECONDS) {
        throw badProof(`iat must be within ${DPOP_IAT_WINDOW_SECONDS} seconds of the server's clock`);
      }
      if (payload.ath !== createHash('sha256').update(presented.token).digest('base64url'))
        throw badProof('ath must be the base64url SHA-256 of the access token');
      if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256)
        throw badProof('jti must be a string of 1 to 256 characters');
      // Kept until the proof could no longer pass the iat check anyway.
      if (!(await seen.firstSeen(`${jkt}:${payload.jti}`, (payload.iat + DPOP_IAT_WINDOW_SECONDS) * 1000)))
        throw badProof('this proof (its jti) was already used');
    },
  };
}

/** RFC 9449 §4.3: `htu` compared without query and fragment, after the URL parser's normalization (case, default port, dot segments). */
function sameUrl(htu: string, expected: string): boolean {
  let url: URL;
  try {
    url = new URL(htu);
  } catch {
    return false;
  }
  url.search = '';
  url.hash = '';
  return url.href === expected;
}
