import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import type { InvalidationBus } from '../../kit/invalidation.ts';
import { decodeCursor, pageOf, pageQuery, toPage } from '../../kit/paging.ts';
import { ADMIN } from '../access/rules.ts';
import { Errors, Nullable, Security } from '../api/schemas.ts';
import { rotateSigningKeys } from '../oidc/signing-keys.ts';
import { listSigningKeys } from './store.ts';

export interface SigningKeyRouteDeps {
  db: Database;
  secretKey: Buffer;
  issuer: string;
  /** IDENTITY_KEY_REFRESH_SECONDS: how long a new key waits, published, before it signs. */
  propagationSeconds: number;
  /** Rebuilds this instance's provider when the keys changed. */
  reloadKeys(): Promise<boolean>;
  bus: InvalidationBus;
}

/** The bus's channel telling every instance to read the signing keys again. */
const KEYS_CHANGED = 'signing-keys';

const Time = Type.String({ format: 'date-time' });
const KeyOut = Type.Object({
  kid: Type.String(),
  alg: Type.String(),
  created_at: Time,
  retired_at: Nullable(Time),
  publish_until: Nullable(Time),
  state: Type.Union([Type.Literal('signing'), Type.Literal('next'), Type.Literal('retired'), Type.Literal('expired')], {
    description:
      'signing: signs ID tokens now; next: published, signs from `signs_from`; retired: published for verification until `publish_until`; expired: out of the JWKS.',
  }),
  published: Type.Boolean({ description: 'In the JWKS (every instance serves it once it has reloaded).' }),
  served: Type.Boolean({ description: 'In the JWKS this instance serves right now.' }),
  signs_from: Nullable(Time),
});
const KeysPage = Type.Object({
  ...pageOf(KeyOut).properties,
  jwks_uri: Type.String(),
  propagation_seconds: Type.Integer({ description: 'How long a new key waits, published, before it signs.' }),
});
const Position = Type.Tuple([Type.String({ maxLength: 64 }), Type.String({ minLength: 1, maxLength: 200 })]);

/**
 * `GET /api/v1/signing-keys` and `POST /api/v1/signing-keys/rotate` (ADMIN). A rotation is staged (oidc/signing-keys.ts):
 * the new key is published at once and signs after IDENTITY_KEY_REFRESH_SECONDS; every instance is told through the
 * invalidation bus to reload (with Redis at once; without, each finds it at its next periodic check).
 */
export async function registerSigningKeyRoutes(app: App, deps: SigningKeyRouteDeps): Promise<void> {
  deps.bus.subscribe(KEYS_CHANGED, () => {
    deps.reloadKeys().catch((err) => app.log.error({ err }, 'signing key reload failed'));
  });
  const served = async (): Promise<Set<string>> => {
    const r = await app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    const body = r.json() as { keys?: { kid?: string }[] };
    return new Set((body.keys ?? []).map((k) => k.kid ?? ''));
  };
  await app.register(
    async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      scope.get(
        '/signing-keys',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'listSigningKeys',
            tags: ['management'],
            security: Security,
            summary: 'The signing keys, newest first: which signs, which are published in the JWKS, and until when',
            querystring: Type.Object(pageQuery({ defaultLimit: 50, maxLimit: 200 }), { additionalProperties: false }),
            response: { 200: KeysPage, ...Errors },
          },
        },
        async (request) => {
          const { limit, cursor } = request.query;
          const [rows, inJwks] = await Promise.all([
            listSigningKeys(deps.db, { limit: limit + 1, after: decodeCursor(cursor, Position) }),
            served(),
          ]);
          const page = toPage(
            rows,
            limit,
            (k) => k.position,
            ({ position: _, ...k }) => ({ ...k, served: inJwks.has(k.kid) }),
          );
          return {
            ...page,
            jwks_uri: new URL('/.well-known/jwks.json', deps.issuer).href,
            propagation_seconds: deps.propagationSeconds,
          };
        },
      );
      scope.post(
        '/signing-keys/rotate',
        {
          config: { access: ADMIN },
          schema: {
            operationId: 'rotateSigningKeys',
            tags: ['management'],
            security: Security,
            summary:
              'Add a signing key: published at once, it signs after IDENTITY_KEY_REFRESH_SECONDS; the current key keeps signing until then and stays published until what it signed has expired',
            response: {
              200: Type.Object({
                kid: Type.String({ description: 'The new key.' }),
                retired: Type.Array(Type.String(), { description: 'The keys it takes over from.' }),
                signs_from: Time,
              }),
              ...Errors,
            },
          },
        },
        async () => {
          const r = await rotateSigningKeys(deps.db, deps.secretKey, { propagationSeconds: deps.propagationSeconds });
          await deps.reloadKeys();
          deps.bus.publish(KEYS_CHANGED, undefined);
          return { kid: r.kid, retired: r.retired, signs_from: r.signsFrom };
        },
      );
    },
    { prefix: '/api/v1' },
  );
}
