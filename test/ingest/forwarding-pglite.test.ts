import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildIngestApp } from '../../src/ingest/app.ts';
import { loadIngestConfig } from '../../src/ingest/config.ts';
import { tempDir } from '../support/tmp.ts';
import { startWebhookReceiver } from '../support/vendors/webhook.ts';
import { ADMIN_TOKEN, makeEvent } from './helpers.ts';
import { FAST_FORWARDING, waitFor } from './forwarding-helpers.ts';

const dir = tempDir();
after(() => dir.remove());

test('forwarding runs on the embedded database too (no DATABASE_URL): trigger, claims, retries and delivery', async () => {
  const receiver = await startWebhookReceiver();
  const app = await buildIngestApp(
    loadIngestConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'silent', INGEST_ADMIN_TOKEN: ADMIN_TOKEN, ...FAST_FORWARDING }),
  );
  try {
    const admin = async (url: string, payload: object) => {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload,
      });
      assert.ok(res.statusCode < 300, res.body);
      return res.json();
    };
    await admin('/api/v1/projects', { name: 'embedded', id: 'embedded' });
    const { key } = await admin('/api/v1/projects/embedded/keys', { name: 'k' });
    const dest = await admin('/api/v1/projects/embedded/destinations', {
      name: 'hook',
      kind: 'webhook',
      base_url: receiver.url,
    });
    receiver.secret = dest.secret;
    receiver.fail({ status: 503 });
    const events = Array.from({ length: 25 }, () => makeEvent('embedded'));
    const res = await app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ events }),
    });
    assert.equal(res.statusCode, 202, res.body);
    await waitFor('delivery', () => events.every((e) => receiver.arrivals.get(e.event_id as string) === 1));
    // The refused first attempt, then the retries: with backoff per event (with jitter) the 25 may come due
    // in more than one round, but each arrives exactly once.
    assert.ok(receiver.received.length >= 2, `${receiver.received.length} requests`);
  } finally {
    await app.close();
    await receiver.close();
  }
});
