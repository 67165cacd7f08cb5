import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { openDatabase, type Database } from '../../src/kit/db.ts';
import { migrate } from '../../src/kit/migrations.ts';
import { MIGRATIONS } from '../../src/identity/app.ts';
import { createHuman } from '../../src/identity/principals/store.ts';
import { createOrganization } from '../../src/identity/organizations/store.ts';
import { createListing, moveListing } from '../../src/identity/marketplace/listing-store.ts';
import { LISTING_MOVES } from '../../src/identity/marketplace/listing-transitions.ts';
import { createSubscription } from '../../src/identity/billing/subscription-store.ts';
import { freshPostgres, type FreshDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const tmp = tempDir();
let database: FreshDatabase;
let db: Database;
let orgId: string;
let ownerId: string;

async function platform(...args: string[]) {
  const child = spawn(process.execPath, [CLI, 'identity', ...args], {
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'silent',
      DATA_DIR: tmp.path,
      DATABASE_URL: database.url,
      PLATFORM_SECRET_KEY: 'f'.repeat(64),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [status] = await once(child, 'exit');
  return { status: status as number | null, stdout, stderr };
}

before(async () => {
  database = await freshPostgres('idmarketcli');
  db = await openDatabase({ url: database.url, dataDir: tmp.path, schema: 'identity' });
  await migrate(db, MIGRATIONS);
  ownerId = (await createHuman(db, { email: 'owner@example.com', emailVerified: true })).id;
  orgId = (await createOrganization(db, { name: 'Seller', slug: 'seller' })).id;
});
after(async () => {
  await db?.close();
  await database.drop();
  tmp.remove();
});

test('the reviewer lists what awaits review and publishes, sends back or archives from the shell', async () => {
  const waiting = await createListing(db, {
    title: 'Charts pack',
    product_type: 'pack',
    creator_org_id: orgId,
    owner_id: ownerId,
  });
  await moveListing(db, waiting.id, LISTING_MOVES.submit);
  const draft = await createListing(db, {
    title: 'Still a draft',
    product_type: 'pack',
    creator_org_id: orgId,
    owner_id: ownerId,
  });

  const list = await platform('listings', 'list', '--status', 'pending_review', '--json');
  assert.equal(list.status, 0, list.stderr);
  const rows = JSON.parse(list.stdout) as { id: string }[];
  assert.deepEqual(
    rows.map((r) => r.id),
    [waiting.id],
  );

  const published = await platform('listings', 'publish', waiting.id);
  assert.equal(published.status, 0, published.stderr);
  assert.match(published.stdout, /is now published \(published 20\d\d-/);
  // Illegal moves and unknown listings ran and failed (exit 1); a malformed id is a usage error (exit 2).
  const again = await platform('listings', 'publish', waiting.id);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /cannot move to published/);
  assert.equal((await platform('listings', 'withdraw', draft.id)).status, 1);
  assert.equal((await platform('listings', 'publish', '00000000-0000-4000-8000-000000000000')).status, 1);
  assert.equal((await platform('listings', 'publish', 'not-an-id')).status, 2);
  assert.equal((await platform('listings', 'list', '--status', 'sold')).status, 2);
  const archived = await platform('listings', 'archive', waiting.id, '--json');
  assert.equal(JSON.parse(archived.stdout).status, 'archived');
});

test("an organization's subscription is shown from the shell", async () => {
  assert.equal((await platform('subscriptions', 'show', orgId)).status, 1, 'none yet');
  await createSubscription(db, orgId, {
    plan_tier: 'pro',
    status: 'trialing',
    payment_subscription_id: 'sub_123',
    payment_customer_id: 'cus_9',
  });
  const shown = await platform('subscriptions', 'show', orgId);
  assert.equal(shown.status, 0, shown.stderr);
  assert.match(shown.stdout, /plan pro, trialing/);
  assert.match(shown.stdout, /payment subscription sub_123, customer cus_9/);
});
