import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { databaseUrlOf, type StorageConfig } from '../../kit/storage.ts';
import { localBus, postgresBus, type LiveBus } from './bus.ts';
import { createLiveHub, type LiveHub } from './hub.ts';

/**
 * The live stream's hub and its bus: LISTEN/NOTIFY on the service's PostgreSQL, in-process on the embedded database.
 * Closed with the app.
 */
export async function openLive(app: App, db: Database, config: StorageConfig): Promise<LiveHub> {
  let bus: LiveBus | undefined;
  const hub = createLiveHub({
    bus: () => {
      if (!bus) throw new Error('live bus used before it was opened');
      return bus;
    },
    log: app.log.child({ component: 'live' }),
  });
  const url = databaseUrlOf(config);
  bus = url
    ? await postgresBus({
        url,
        channel: `${db.schema}_live`,
        notify: (channel, payload) => db.query('SELECT pg_notify($1, $2)', [channel, payload]),
        deliver: (m) => hub.deliver(m),
        log: app.log,
      })
    : localBus((m) => hub.deliver(m));
  app.addHook('onClose', async () => {
    await hub.close();
    await bus?.close();
  });
  return hub;
}
