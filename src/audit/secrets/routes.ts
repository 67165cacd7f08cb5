import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { deleteSecretRoute } from './routes/delete.ts';
import { listSecretsRoute } from './routes/list.ts';
import { putSecretRoute } from './routes/put.ts';

export interface SecretDeps {
  db: Database;
  /** PLATFORM_SECRET_KEY: seals the values at rest. */
  secretKey: Buffer;
}

/** `/api/v1/secrets`: the caller's secrets for sign-in steps, cookies and headers; no endpoint answers a value. */
export function registerSecretRoutes(app: App, deps: SecretDeps): void {
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    putSecretRoute(api, deps);
    listSecretsRoute(api, deps);
    deleteSecretRoute(api, deps);
  });
}
