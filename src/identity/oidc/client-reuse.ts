import type { Client } from 'oidc-provider';
import type { AppRecord } from '../apps/record.ts';
import type { ClientStore } from './clients.ts';
import type { OidcProvider } from './provider.ts';

/**
 * oidc-provider's Client.find rebuilds an app's metadata and hashes its JSON on every call to find the Client it already
 * made for it: about 15 µs of every token request (issue 14's profile). The Client made for one version of the app (the
 * client store's cached record, replaced whenever the app changes or its cache entry expires) is kept for as long as
 * that record lives, so a change to the app still yields a new Client at once. Unknown, deactivated and static clients
 * take the provider's own path.
 */
export function reuseClientsPerAppVersion(provider: OidcProvider, clients: ClientStore): void {
  const findClient = provider.Client.find.bind(provider.Client);
  const byVersion = new WeakMap<AppRecord, Client>();
  provider.Client.find = (async (id: string) => {
    const app = typeof id === 'string' && id.length > 0 ? await clients.app(id) : undefined;
    if (!app?.active) return findClient(id);
    const known = byVersion.get(app);
    if (known) return known;
    const client = await findClient(id);
    if (client) byVersion.set(app, client);
    return client;
  }) as typeof provider.Client.find;
}
