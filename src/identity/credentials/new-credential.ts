import { Type, type Static } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { Scopes } from '../api/schemas.ts';
import type { PrincipalView } from '../principals/view.ts';
import type { ClientStore } from '../oidc/clients.ts';
import { createApiKey, createKeypair, type CredentialView } from './store.ts';

const Common = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  scopes: Type.Optional(Scopes),
  expires_at: Type.Optional(Timestamp),
};
export const NewApiKey = Type.Object(
  { type: Type.Literal('api_key'), ...Common },
  { additionalProperties: false, title: 'NewApiKey' },
);
export const NewKeypair = Type.Object(
  {
    type: Type.Literal('keypair'),
    public_key: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description: 'PEM SubjectPublicKeyInfo (-----BEGIN PUBLIC KEY-----).',
    }),
    key_algorithm: Type.Optional(
      Type.Union([Type.Literal('RS256'), Type.Literal('ES256')], { description: 'RS256 when omitted.' }),
    ),
    key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._~-]+$' })),
    ...Common,
  },
  { additionalProperties: false, title: 'NewKeypair' },
);

/** An application's keys are its client's (private_key_jwt): the cached client is dropped so they count at once. */
export function keysChanged(clients: ClientStore, p: PrincipalView): void {
  if (p.application) clients.invalidate(p.application.clientId);
}

/**
 * A new credential of `p`: an API key (services; its value returned once) or a public key (services, agents and
 * confidential applications). Its scopes must be known to the service.
 */
export async function addCredential(
  deps: { db: Database; clients: ClientStore; scopes: string[] },
  p: PrincipalView,
  b: Static<typeof NewApiKey> | Static<typeof NewKeypair>,
): Promise<{ credential: CredentialView; api_key?: string }> {
  const unknown = (b.scopes ?? []).filter((s) => !deps.scopes.includes(s));
  if (unknown.length) throw new HttpError(400, 'VALIDATION_ERROR', `unknown scope ${unknown.join(', ')}`);
  const expiresAt = b.expires_at ? new Date(b.expires_at) : undefined;
  if (b.type === 'api_key') {
    if (p.type !== 'service')
      throw new HttpError(400, 'VALIDATION_ERROR', `API keys are for service principals; this one is a ${p.type}`);
    const { credential, apiKey } = await createApiKey(deps.db, p.id, { name: b.name, scopes: b.scopes, expiresAt });
    return { credential, api_key: apiKey };
  }
  if (p.type !== 'service' && p.type !== 'agent' && p.type !== 'application')
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      `key pairs are for service, agent and application principals; this one is a ${p.type}`,
    );
  if (p.application && (await deps.clients.app(p.application.clientId))?.public !== false)
    throw new HttpError(
      400,
      'VALIDATION_ERROR',
      'a public app cannot keep a private key: only confidential applications authenticate with keys',
    );
  const credential = await createKeypair(deps.db, p.id, {
    name: b.name,
    scopes: b.scopes,
    expiresAt,
    publicKey: b.public_key,
    algorithm: b.key_algorithm ?? 'RS256',
    keyId: b.key_id,
  });
  keysChanged(deps.clients, p);
  return { credential };
}
