import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import {
  LISTING_MOVES,
  LISTING_STATUSES,
  type ListingAction,
  type ListingStatus,
} from '../../src/identity/marketplace/listing-transitions.ts';

// Real PostgreSQL, real tokens from the service's own sign-in: the platform operator's IDENTITY_ADMIN_TOKEN,
// a platform admin, and people whose memberships decide what they may do.
const operatorToken = randomBytes(24).toString('hex');
let server: Server;
const people = {
  reviewer: { email: 'reviewer@example.com', password: 'reviewer has a long password', admin: true },
  alice: { email: 'alice@seller.example', password: 'alice has a long password', admin: false }, // owner of the seller
  bob: { email: 'bob@seller.example', password: 'bob has a long password', admin: false }, // plain member of the seller
  carol: { email: 'carol@buyer.example', password: 'carol has a long password', admin: false }, // admin of the buyer
  dave: { email: 'dave@elsewhere.example', password: 'dave has a long password', admin: false }, // no membership
};
type Who = keyof typeof people | 'operator';
const tokens = new Map<Who, string>();
const ids = new Map<Who, string>();
let seller: string;
let buyer: string;

function call(path: string, init: { method?: string; body?: unknown; as?: Who | null } = {}) {
  const who = init.as === undefined ? 'operator' : init.as;
  const token = who === null ? undefined : who === 'operator' ? operatorToken : tokens.get(who);
  return fetch(`${server.issuer}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  }).then(async (r) => ({ status: r.status, body: r.status === 204 ? undefined : ((await r.json()) as any) }));
}

async function signIn(who: { email: string; password: string }) {
  const app = await server.registerApp({
    name: 'Market',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'admin'],
  });
  const config = await oidc.discovery(
    new URL(server.issuer),
    app.clientId,
    app.secret,
    oidc.ClientSecretBasic(app.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid admin',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, who);
  return (await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier })).access_token;
}

async function member(org: string, principal: string, role: string) {
  const r = await call(`/organizations/${org}/members`, { method: 'POST', body: { principal_id: principal, role } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

before(async () => {
  server = await startServer('idmarket', { IDENTITY_ADMIN_TOKEN: operatorToken });
  for (const [name, p] of Object.entries(people))
    ids.set(name as Who, await server.createHuman(p.email, p.password, p.admin));
  for (const [name, p] of Object.entries(people)) tokens.set(name as Who, await signIn(p));
  seller = (await call('/organizations', { method: 'POST', body: { name: 'Seller', slug: 'seller' } })).body.id;
  buyer = (await call('/organizations', { method: 'POST', body: { name: 'Buyer', slug: 'buyer' } })).body.id;
  await member(seller, ids.get('alice')!, 'owner');
  await member(seller, ids.get('bob')!, 'member');
  await member(buyer, ids.get('carol')!, 'admin');
});
after(async () => server?.close());

async function newListing(extra: Record<string, unknown> = {}, as: Who = 'alice') {
  const r = await call('/listings', {
    method: 'POST',
    as,
    body: {
      creator_org_id: seller,
      product_type: 'dashboard-pack',
      title: `Pack ${randomBytes(3).toString('hex')}`,
      ...extra,
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

/** A listing brought to `status` by the allowed moves (by the operator, who may make every one). */
async function listingIn(status: ListingStatus) {
  const l = await newListing();
  const path: Record<ListingStatus, ListingAction[]> = {
    draft: [],
    pending_review: ['submit'],
    published: ['submit', 'publish'],
    archived: ['submit', 'publish', 'archive'],
  };
  let now = l;
  for (const action of path[status]) {
    const r = await call(`/listings/${l.id}/${action}`, { method: 'POST' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    now = r.body;
  }
  assert.equal(now.status, status);
  return now;
}

test('a listing is created with the document defaults by an owner of its organization', async () => {
  const l = await newListing({ description: 'Twelve dashboards', metadata: { tier: 'gold' } });
  assert.equal(l.status, 'draft');
  assert.equal(l.pricing_model, 'free');
  assert.equal(l.price_cents, 0);
  assert.equal(l.currency, 'USD');
  assert.equal(l.published_at, null);
  assert.equal(l.product_id, null);
  assert.equal(l.owner_id, ids.get('alice'));
  assert.equal(l.creator_org_id, seller);
  assert.deepEqual(l.metadata, { tier: 'gold' });
  assert.match(l.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // A plain member, an outsider and nobody may not create one; the operator must say who owns it.
  assert.equal(
    (
      await call('/listings', {
        method: 'POST',
        as: 'bob',
        body: { creator_org_id: seller, product_type: 'x', title: 'x' },
      })
    ).status,
    403,
  );
  assert.equal(
    (
      await call('/listings', {
        method: 'POST',
        as: 'dave',
        body: { creator_org_id: seller, product_type: 'x', title: 'x' },
      })
    ).status,
    404,
  );
  assert.equal(
    (
      await call('/listings', {
        method: 'POST',
        as: null,
        body: { creator_org_id: seller, product_type: 'x', title: 'x' },
      })
    ).status,
    401,
  );
  const noOwner = await call('/listings', {
    method: 'POST',
    body: { creator_org_id: seller, product_type: 'x', title: 'x' },
  });
  assert.equal(noOwner.status, 400);
  assert.equal(noOwner.body.error.code, 'VALIDATION_ERROR');
  const byOperator = await call('/listings', {
    method: 'POST',
    body: { creator_org_id: seller, product_type: 'x', title: 'x', owner_id: ids.get('bob') },
  });
  assert.equal(byOperator.status, 201);
  assert.equal(byOperator.body.owner_id, ids.get('bob'));
});

test('every allowed listing move, by whom it is allowed; published_at is set once', async () => {
  const l = await newListing({ pricing_model: 'one_time', price_cents: 4900, currency: 'EUR' });
  // submit: the organization's managers only.
  assert.equal((await call(`/listings/${l.id}/submit`, { method: 'POST', as: 'bob' })).status, 403);
  assert.equal((await call(`/listings/${l.id}/submit`, { method: 'POST', as: 'dave' })).status, 404);
  let r = await call(`/listings/${l.id}/submit`, { method: 'POST', as: 'alice' });
  assert.equal(r.status, 200);
  assert.equal(r.body.status, 'pending_review');
  // withdraw (pending_review -> draft): by the managers, or by the reviewer sending it back.
  r = await call(`/listings/${l.id}/withdraw`, { method: 'POST', as: 'alice' });
  assert.equal(r.body.status, 'draft');
  await call(`/listings/${l.id}/submit`, { method: 'POST', as: 'alice' });
  r = await call(`/listings/${l.id}/withdraw`, { method: 'POST', as: 'reviewer' });
  assert.equal(r.status, 200);
  assert.equal(r.body.status, 'draft');
  await call(`/listings/${l.id}/submit`, { method: 'POST', as: 'alice' });
  // publish: only the reviewer (a platform admin), not the listing's own owner.
  assert.equal((await call(`/listings/${l.id}/publish`, { method: 'POST', as: 'alice' })).status, 403);
  assert.equal((await call(`/listings/${l.id}/publish`, { method: 'POST', as: 'bob' })).status, 403);
  r = await call(`/listings/${l.id}/publish`, { method: 'POST', as: 'reviewer' });
  assert.equal(r.status, 200);
  assert.equal(r.body.status, 'published');
  const publishedAt = r.body.published_at;
  assert.match(publishedAt, /Z$/);
  // Now anyone signed in sees it.
  assert.equal((await call(`/listings/${l.id}`, { as: 'dave' })).body.title, l.title);
  // archive: the managers (or the reviewer); published_at is kept as it was.
  assert.equal((await call(`/listings/${l.id}/archive`, { method: 'POST', as: 'bob' })).status, 403);
  r = await call(`/listings/${l.id}/archive`, { method: 'POST', as: 'alice' });
  assert.equal(r.body.status, 'archived');
  assert.equal(r.body.published_at, publishedAt);
  const archivedByReviewer = await listingIn('published');
  assert.equal(
    (await call(`/listings/${archivedByReviewer.id}/archive`, { method: 'POST', as: 'reviewer' })).body.status,
    'archived',
  );
});

test('every illegal listing move is 409 CONFLICT and changes nothing', async () => {
  let checked = 0;
  for (const status of LISTING_STATUSES) {
    for (const [action, move] of Object.entries(LISTING_MOVES)) {
      if (move.from === status) continue;
      const l = await listingIn(status);
      const r = await call(`/listings/${l.id}/${action}`, { method: 'POST' });
      assert.equal(r.status, 409, `${action} from ${status}: ${r.status}`);
      assert.equal(r.body.error.code, 'CONFLICT');
      const after = (await call(`/listings/${l.id}`)).body;
      assert.deepEqual(after, l, `${action} from ${status} changed the listing`);
      checked++;
    }
  }
  assert.equal(checked, 12);
  // Two managers submitting the same draft at once: one move, the other finds it moved.
  const l = await newListing();
  const both = await Promise.all([
    call(`/listings/${l.id}/submit`, { method: 'POST', as: 'alice' }),
    call(`/listings/${l.id}/submit`, { method: 'POST' }),
  ]);
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
});

test('listings: who sees what, changes allowed per status, bad input', async () => {
  const draft = await newListing();
  assert.equal((await call(`/listings/${draft.id}`, { as: 'dave' })).status, 404);
  assert.equal((await call(`/listings/${draft.id}`, { as: 'bob' })).status, 200);
  const published = await listingIn('published');
  const seen = (await call('/listings?limit=500', { as: 'dave' })).body.items.map((l: any) => l.id);
  assert.ok(seen.includes(published.id));
  assert.ok(!seen.includes(draft.id));
  const bobSees = (await call(`/listings?creator_org_id=${seller}&status=draft&limit=500`, { as: 'bob' })).body.items;
  assert.ok(bobSees.some((l: any) => l.id === draft.id));
  assert.ok(bobSees.every((l: any) => l.status === 'draft'));
  // Paging: a cursor walks every page, a made-up one is 400.
  const page1 = await call('/listings?limit=2');
  assert.equal(page1.body.items.length, 2);
  const page2 = await call(`/listings?limit=2&cursor=${page1.body.next}`);
  assert.ok(page2.body.items[0].id > page1.body.items[1].id);
  assert.equal((await call('/listings?cursor=bm9wZQ')).status, 400);

  // While a draft everything may change; after, only description and metadata; archived, nothing.
  let r = await call(`/listings/${draft.id}`, {
    method: 'PATCH',
    as: 'alice',
    body: { title: 'Renamed', pricing_model: 'per_seat', price_cents: 500 },
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.title, 'Renamed');
  assert.equal(
    (await call(`/listings/${draft.id}`, { method: 'PATCH', as: 'bob', body: { title: 'Mine' } })).status,
    403,
  );
  assert.equal(
    (await call(`/listings/${published.id}`, { method: 'PATCH', as: 'alice', body: { price_cents: 1 } })).status,
    409,
  );
  r = await call(`/listings/${published.id}`, { method: 'PATCH', as: 'alice', body: { description: 'Better words' } });
  assert.equal(r.status, 200);
  assert.equal(r.body.description, 'Better words');
  const archived = await listingIn('archived');
  assert.equal((await call(`/listings/${archived.id}`, { method: 'PATCH', body: { description: 'x' } })).status, 409);

  for (const body of [
    { creator_org_id: seller, product_type: 'x', title: '' },
    { creator_org_id: seller, product_type: 'x', title: 't', currency: 'usd' },
    { creator_org_id: seller, product_type: 'x', title: 't', currency: 'XYZ' },
    { creator_org_id: seller, product_type: 'x', title: 't', price_cents: 100 },
    { creator_org_id: seller, product_type: 'x', title: 't', pricing_model: 'subscription' },
    { creator_org_id: seller, product_type: 'x', title: 't', pricing_model: 'rental' },
    { creator_org_id: seller, product_type: 'x', title: 't', price_cents: -1 },
    { creator_org_id: 'not-a-uuid', product_type: 'x', title: 't' },
    { creator_org_id: seller, title: 't' },
    { creator_org_id: seller, product_type: 'x', title: 't', surprise: 1 },
    { creator_org_id: seller, product_type: 'x', title: 'nul\u0000inside' },
    { creator_org_id: seller, product_type: 'x', title: 't', metadata: { 'k\u0000': 1 } },
  ]) {
    const bad = await call('/listings', { method: 'POST', as: 'alice', body });
    assert.equal(bad.status, 400, `${JSON.stringify(body)} -> ${bad.status}`);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
  }
  assert.equal(
    (
      await call('/listings', {
        method: 'POST',
        body: {
          creator_org_id: '00000000-0000-4000-8000-000000000000',
          product_type: 'x',
          title: 't',
          owner_id: ids.get('alice'),
        },
      })
    ).status,
    404,
  );
  assert.equal((await call('/listings/00000000-0000-4000-8000-000000000000')).status, 404);
  assert.equal((await call(`/listings/${draft.id}/delete`, { method: 'POST' })).status, 404);
  assert.equal((await call('/listings', { as: null })).status, 401);
  const forged = await fetch(`${server.issuer}/api/v1/listings`, {
    headers: { authorization: 'Bearer not-a-real-token' },
  });
  assert.equal(forged.status, 401);
});

test('licenses: for published listings only, one per organization, seats by license type', async () => {
  const draft = await newListing();
  assert.equal(
    (await call('/licenses', { method: 'POST', as: 'carol', body: { listing_id: draft.id, organization_id: buyer } }))
      .status,
    404,
    'a draft is invisible to the buyer',
  );
  const pending = await listingIn('pending_review');
  const notYet = await call('/licenses', {
    method: 'POST',
    body: { listing_id: pending.id, organization_id: buyer, purchased_by: ids.get('carol') },
  });
  assert.equal(notYet.status, 409);
  const archived = await listingIn('archived');
  assert.equal(
    (
      await call('/licenses', {
        method: 'POST',
        as: 'carol',
        body: { listing_id: archived.id, organization_id: buyer },
      })
    ).status,
    409,
  );

  const l = await listingIn('published');
  const unlimited = await call('/licenses', {
    method: 'POST',
    as: 'carol',
    body: { listing_id: l.id, organization_id: buyer },
  });
  assert.equal(unlimited.status, 201, JSON.stringify(unlimited.body));
  assert.equal(unlimited.body.license_type, 'unlimited');
  assert.equal(unlimited.body.seats, null);
  assert.equal(unlimited.body.used_seats, 0);
  assert.equal(unlimited.body.valid_until, null);
  assert.equal(unlimited.body.purchased_by, ids.get('carol'));
  const again = await call('/licenses', {
    method: 'POST',
    as: 'carol',
    body: { listing_id: l.id, organization_id: buyer, license_type: 'seat_based', seats: 3 },
  });
  assert.equal(again.status, 409);
  // The seller sees who bought; an outsider does not.
  assert.equal((await call(`/licenses/${unlimited.body.id}`, { as: 'alice' })).status, 200);
  assert.equal((await call(`/licenses/${unlimited.body.id}`, { as: 'dave' })).status, 404);
  assert.ok(
    (await call(`/licenses?listing_id=${l.id}`, { as: 'alice' })).body.items.some(
      (x: any) => x.id === unlimited.body.id,
    ),
  );
  assert.equal((await call(`/licenses?listing_id=${l.id}`, { as: 'dave' })).body.items.length, 0);

  const other = await listingIn('published');
  for (const body of [
    { listing_id: other.id, organization_id: buyer, license_type: 'seat_based' },
    { listing_id: other.id, organization_id: buyer, license_type: 'team' },
    { listing_id: other.id, organization_id: buyer, license_type: 'unlimited', seats: 4 },
    { listing_id: other.id, organization_id: buyer, license_type: 'seat_based', seats: 0 },
    { listing_id: other.id, organization_id: buyer, license_type: 'per_head', seats: 2 },
    {
      listing_id: other.id,
      organization_id: buyer,
      valid_from: '2030-01-01T00:00:00Z',
      valid_until: '2029-01-01T00:00:00Z',
    },
  ]) {
    const bad = await call('/licenses', { method: 'POST', as: 'carol', body });
    assert.equal(bad.status, 400, `${JSON.stringify(body)} -> ${bad.status}`);
  }
  // A member who is not an owner or admin may not buy; neither may someone for another organization.
  assert.equal(
    (await call('/licenses', { method: 'POST', as: 'bob', body: { listing_id: other.id, organization_id: seller } }))
      .status,
    403,
  );
  assert.equal(
    (await call('/licenses', { method: 'POST', as: 'carol', body: { listing_id: other.id, organization_id: seller } }))
      .status,
    404,
  );
  const team = await call('/licenses', {
    method: 'POST',
    as: 'carol',
    body: {
      listing_id: other.id,
      organization_id: buyer,
      license_type: 'team',
      seats: 10,
      valid_until: '2099-01-01T00:00:00Z',
    },
  });
  assert.equal(team.status, 201);
  assert.equal(team.body.seats, 10);
  assert.equal(team.body.valid_until, '2099-01-01T00:00:00.000Z');
});

async function agentIn(org: string, name: string) {
  const r = await call('/principals', { method: 'POST', body: { type: 'agent', name, model_id: 'model-1' } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  await member(org, r.body.id, 'member');
  return r.body.id as string;
}

test('seats: assigned to members only, one per principal, counted exactly, given back', async () => {
  const l = await listingIn('published');
  const lic = (
    await call('/licenses', {
      method: 'POST',
      as: 'carol',
      body: { listing_id: l.id, organization_id: buyer, license_type: 'seat_based', seats: 2 },
    })
  ).body;
  const a = await agentIn(buyer, `seat-a-${lic.id.slice(0, 6)}`);
  const b = await agentIn(buyer, `seat-b-${lic.id.slice(0, 6)}`);
  const c = await agentIn(buyer, `seat-c-${lic.id.slice(0, 6)}`);
  const r = await call(`/licenses/${lic.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id: a } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.seat.assigned_by, ids.get('carol'));
  assert.equal(r.body.license.used_seats, 1);
  assert.equal(
    (await call(`/licenses/${lic.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id: a } })).status,
    409,
    'one seat per principal',
  );
  assert.equal(
    (await call(`/licenses/${lic.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id: ids.get('dave') } }))
      .status,
    409,
    'not a member',
  );
  assert.equal(
    (await call(`/licenses/${lic.id}/seats`, { method: 'POST', as: 'alice', body: { principal_id: b } })).status,
    403,
    "the seller does not assign the buyer's seats",
  );
  assert.equal(
    (await call(`/licenses/${lic.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id: b } })).status,
    201,
  );
  const full = await call(`/licenses/${lic.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id: c } });
  assert.equal(full.status, 409);
  assert.match(full.body.error.message, /seats/);
  // Lowering seats below the assignments is refused; raising them frees a seat.
  assert.equal((await call(`/licenses/${lic.id}`, { method: 'PATCH', as: 'carol', body: { seats: 1 } })).status, 409);
  assert.equal((await call(`/licenses/${lic.id}`, { method: 'PATCH', as: 'carol', body: { seats: 3 } })).body.seats, 3);
  assert.equal(
    (await call(`/licenses/${lic.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id: c } })).status,
    201,
  );
  assert.equal((await call(`/licenses/${lic.id}`)).body.used_seats, 3);
  assert.equal((await call(`/licenses/${lic.id}/seats`)).body.items.length, 3);
  // Given back: the count follows.
  assert.equal((await call(`/licenses/${lic.id}/seats/${a}`, { method: 'DELETE', as: 'carol' })).status, 204);
  assert.equal((await call(`/licenses/${lic.id}/seats/${a}`, { method: 'DELETE', as: 'carol' })).status, 404);
  assert.equal((await call(`/licenses/${lic.id}`)).body.used_seats, 2);
  // An expired license takes no new seats.
  const old = await listingIn('published');
  const expired = (
    await call('/licenses', {
      method: 'POST',
      as: 'carol',
      body: {
        listing_id: old.id,
        organization_id: buyer,
        license_type: 'seat_based',
        seats: 5,
        valid_from: '2020-01-01T00:00:00Z',
        valid_until: '2021-01-01T00:00:00Z',
      },
    })
  ).body;
  const late = await call(`/licenses/${expired.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id: a } });
  assert.equal(late.status, 409);
  assert.equal((await call(`/licenses/${expired.id}`)).body.used_seats, 0);
});

test('seats under concurrency: parallel requests never oversell, and used_seats equals the assignments', async () => {
  const l = await listingIn('published');
  const lic = (
    await call('/licenses', {
      method: 'POST',
      as: 'carol',
      body: { listing_id: l.id, organization_id: buyer, license_type: 'seat_based', seats: 5 },
    })
  ).body;
  const agents: string[] = [];
  for (let i = 0; i < 24; i++) agents.push(await agentIn(buyer, `rush-${i}-${lic.id.slice(0, 6)}`));
  const results = await Promise.all(
    agents.map((principal_id) =>
      call(`/licenses/${lic.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id } }),
    ),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 201).length, 5, statuses.join(','));
  assert.equal(statuses.filter((s) => s === 409).length, 19, statuses.join(','));
  const now = (await call(`/licenses/${lic.id}`)).body;
  assert.equal(now.used_seats, 5);
  assert.equal((await call(`/licenses/${lic.id}/seats`)).body.items.length, 5);

  // The same principal asked for many times at once gets one seat; an unlimited license counts every one.
  const l2 = await listingIn('published');
  const open = (
    await call('/licenses', { method: 'POST', as: 'carol', body: { listing_id: l2.id, organization_id: buyer } })
  ).body;
  const same = await Promise.all(
    Array.from({ length: 8 }, () =>
      call(`/licenses/${open.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id: agents[0] } }),
    ),
  );
  assert.deepEqual(same.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
  await Promise.all(
    agents
      .slice(1)
      .map((principal_id) =>
        call(`/licenses/${open.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id } }),
      ),
  );
  // Concurrent giving back and taking: the count still equals the rows.
  await Promise.all([
    ...agents.slice(0, 10).map((p) => call(`/licenses/${open.id}/seats/${p}`, { method: 'DELETE', as: 'carol' })),
    ...agents
      .slice(0, 5)
      .map((principal_id) =>
        call(`/licenses/${open.id}/seats`, { method: 'POST', as: 'carol', body: { principal_id } }),
      ),
  ]);
  const rows = (await call(`/licenses/${open.id}/seats?limit=500`)).body.items.length;
  assert.equal((await call(`/licenses/${open.id}`)).body.used_seats, rows);
});
