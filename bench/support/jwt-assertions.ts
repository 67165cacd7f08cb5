import { createPrivateKey, sign } from 'node:crypto';

/**
 * ES256 key-pair assertions (RFC 7523) for the jwt-bearer phase. Every assertion carries its own `jti` (a spent one
 * is refused), so they are all signed before the phase: signing during it would put the load generator on the cores
 * the server needs. Signed with node:crypto directly (a few times cheaper than jose's WebCrypto path), since a
 * supply large enough for a fast machine is tens of thousands of assertions per phase.
 */
export function signAssertions(options: {
  privateKeyPkcs8: string;
  keyId: string;
  principalId: string;
  audience: string;
  /** Seconds the assertions stay valid from now. */
  lifetime: number;
  count: number;
  jtiPrefix: string;
}): string[] {
  const key = createPrivateKey(options.privateKeyPkcs8);
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: options.keyId })).toString('base64url');
  const exp = Math.floor(Date.now() / 1000) + options.lifetime;
  const out: string[] = new Array(options.count);
  for (let k = 0; k < options.count; k++) {
    const payload = Buffer.from(
      JSON.stringify({
        iss: options.principalId,
        sub: options.principalId,
        aud: options.audience,
        exp,
        jti: `${options.jtiPrefix}-${k}`,
      }),
    ).toString('base64url');
    const input = `${header}.${payload}`;
    const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    out[k] = `${input}.${signature}`;
  }
  return out;
}
