import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';

export type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export const newKey = (): Promise<KeyPair> => generateKeyPair('ES256');

/** RFC 9449 `ath`: the base64url SHA-256 of the access token. */
export const athOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** A DPoP proof made by hand, so that each of its claims can be got wrong on purpose. */
export async function dpopProof(
  keys: KeyPair,
  claims: { htm: string; htu: string; ath?: string | undefined; iat?: number; jti?: string },
): Promise<string> {
  const { iat, ...rest } = claims;
  return new SignJWT({ jti: randomUUID(), ...rest })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
    .setIssuedAt(iat ?? Math.floor(Date.now() / 1000))
    .sign(keys.privateKey);
}

export interface Answer {
  status: number;
  /** The service's error code, when the body has one (`{error:{code}}`). */
  code: string | undefined;
  wwwAuthenticate: string | undefined;
}

/**
 * One resource, called with whatever `Authorization` and `DPoP` headers a case needs: `call(headers)` answers the
 * status, error code and challenge; `htu` is the URL the client calls (the public one), `method` its method.
 */
export interface Resource {
  method: string;
  htu: string;
  call(headers: Record<string, string | string[]>): Promise<Answer>;
  /** The status of a request that passes. */
  ok: number;
}

/**
 * RFC 9449 §7 at a resource server, for a DPoP-bound token `token` bound to `keys`: every way to get the request wrong
 * is a 401 UNAUTHORIZED with a DPoP challenge, and the right proof passes once.
 */
export async function assertBoundTokenRules(resource: Resource, token: string, keys: KeyPair): Promise<void> {
  const { method, htu } = resource;
  const ath = athOf(token);
  const refused = async (
    label: string,
    headers: Record<string, string | string[]>,
    error: 'invalid_token' | 'invalid_dpop_proof',
  ) => {
    const res = await resource.call(headers);
    assert.equal(res.status, 401, label);
    assert.equal(res.code, 'UNAUTHORIZED', label);
    assert.match(
      res.wwwAuthenticate ?? '',
      new RegExp(`^DPoP realm="[^"]+", error="${error}", algs="ES256 EdDSA PS256 RS256"$`),
      label,
    );
  };

  await refused('a bound token sent as Bearer', { authorization: `Bearer ${token}` }, 'invalid_token');
  await refused(
    'a bound token sent as Bearer, even with a valid proof',
    { authorization: `Bearer ${token}`, dpop: await dpopProof(keys, { htm: method, htu, ath }) },
    'invalid_token',
  );
  await refused('DPoP without a proof', { authorization: `DPoP ${token}` }, 'invalid_dpop_proof');
  await refused(
    'a proof that is no JWT',
    { authorization: `DPoP ${token}`, dpop: 'not-a-proof' },
    'invalid_dpop_proof',
  );
  await refused(
    'another key',
    { authorization: `DPoP ${token}`, dpop: await dpopProof(await newKey(), { htm: method, htu, ath }) },
    'invalid_token',
  );
  await refused(
    'wrong htm',
    {
      authorization: `DPoP ${token}`,
      dpop: await dpopProof(keys, { htm: method === 'GET' ? 'POST' : 'GET', htu, ath }),
    },
    'invalid_dpop_proof',
  );
  await refused(
    'wrong htu (another path)',
    { authorization: `DPoP ${token}`, dpop: await dpopProof(keys, { htm: method, htu: `${htu}/other`, ath }) },
    'invalid_dpop_proof',
  );
  await refused(
    'wrong htu (another host)',
    {
      authorization: `DPoP ${token}`,
      dpop: await dpopProof(keys, { htm: method, htu: 'https://elsewhere.example/api/v1', ath }),
    },
    'invalid_dpop_proof',
  );
  await refused(
    'wrong ath',
    { authorization: `DPoP ${token}`, dpop: await dpopProof(keys, { htm: method, htu, ath: athOf(`${token}x`) }) },
    'invalid_dpop_proof',
  );
  await refused(
    'no ath',
    { authorization: `DPoP ${token}`, dpop: await dpopProof(keys, { htm: method, htu }) },
    'invalid_dpop_proof',
  );
  await refused(
    'stale iat',
    {
      authorization: `DPoP ${token}`,
      dpop: await dpopProof(keys, { htm: method, htu, ath, iat: Math.floor(Date.now() / 1000) - 3600 }),
    },
    'invalid_dpop_proof',
  );
  await refused(
    'iat in the future',
    {
      authorization: `DPoP ${token}`,
      dpop: await dpopProof(keys, { htm: method, htu, ath, iat: Math.floor(Date.now() / 1000) + 3600 }),
    },
    'invalid_dpop_proof',
  );
  await refused(
    'two DPoP headers',
    {
      authorization: `DPoP ${token}`,
      dpop: [await dpopProof(keys, { htm: method, htu, ath }), await dpopProof(keys, { htm: method, htu, ath })],
    },
    'invalid_dpop_proof',
  );

  const proof = await dpopProof(keys, { htm: method, htu, ath });
  const passed = await resource.call({ authorization: `DPoP ${token}`, dpop: proof });
  assert.equal(passed.status, resource.ok, `the right proof: ${passed.code}`);
  await refused(
    'the same proof again (replayed jti)',
    { authorization: `DPoP ${token}`, dpop: proof },
    'invalid_dpop_proof',
  );
  // htu is compared without query and fragment (RFC 9449 §4.3), and a fresh proof passes again.
  const withQuery = `${htu}?ignored=1#frag`;
  assert.equal(
    (
      await resource.call({
        authorization: `DPoP ${token}`,
        dpop: await dpopProof(keys, { htm: method, htu: withQuery, ath }),
      })
    ).status,
    resource.ok,
    'htu with query and fragment',
  );
}

/** An unbound token keeps working as Bearer, and is refused with the DPoP scheme (RFC 9449 §7.1). */
export async function assertUnboundTokenRules(resource: Resource, token: string): Promise<void> {
  const asBearer = await resource.call({ authorization: `Bearer ${token}` });
  assert.equal(asBearer.status, resource.ok, `an unbound token as Bearer: ${asBearer.code}`);
  const keys = await newKey();
  const asDpop = await resource.call({
    authorization: `DPoP ${token}`,
    dpop: await dpopProof(keys, { htm: resource.method, htu: resource.htu, ath: athOf(token) }),
  });
  assert.equal(asDpop.status, 401, 'an unbound token with the DPoP scheme');
  assert.equal(asDpop.code, 'UNAUTHORIZED');
  assert.match(asDpop.wwwAuthenticate ?? '', /^DPoP realm="[^"]+", error="invalid_token"/);
}
