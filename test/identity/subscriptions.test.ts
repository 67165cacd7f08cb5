import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { startServer, type Server } from './support.ts';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import {
  deliver,
  stripeId,
  stripeSignatureHeader,
  subscriptionEvent,
  type SubscriptionState,
} from '../support/vendors/stripe.ts';
import {
  SUBSCRIPTION_MOVES,
  SUBSCRIPTION_STATUSES,
  type SubscriptionStatus,
} from '../../src/identity/billing/subscription-transitions.ts';

const operatorToken = randomBytes(24).toString('hex');
const secret = `whsec_${randomBytes(24).toString('base64url')}`;
const rolledSecret = `whsec_${randomBytes(24).toString('base64url')}`;
let server: Server;
let memberToken: string;
let memberOrg: string;
let hook: string;

function call(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  return fetch(`${server.issuer}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.token ?? operatorToken}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
}

async function newOrg() {
  const r = await call('/organizations', {
    method: 'POST',
    body: { name: 'Org', slug: `org-${randomBytes(4).toString('hex')}` },
  });
  assert.equal(r.status, 201);
  return r.body.id as string;
}

before(async () => {
  server = await startServer('idsubs', {
    IDENTITY_ADMIN_TOKEN: operatorToken,
    IDENTITY_STRIPE_WEBHOOK_SECRET: `${secret},${rolledSecret}`,
  });
  hook = `${server.issuer}/api/v1/webhooks/stripe`;
  const who = { email: 'member@example.com', password: 'member has a long password' };
  const id = await server.createHuman(who.email, who.password);
  const app = await server.registerApp({
    name: 'Billing',
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid'],
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
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback } = await authorizeInBrowser(server.issuer, new TestBrowser(), url.href, who);
  memberToken = (await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier }))
    .access_token;
  memberOrg = await newOrg();
  assert.equal(
    (await call(`/organizations/${memberOrg}/members`, { method: 'POST', body: { principal_id: id, role: 'owner' } }))
      .status,
    201,
  );
});
after(async () => server?.close());

test('one subscription per organization, with the document defaults; members read it, only platform admins change it', async () => {
  const created = await call(`/organizations/${memberOrg}/subscription`, { method: 'POST', body: {} });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.plan_tier, 'free');
  assert.equal(created.body.status, 'active');
  assert.equal(created.body.cancel_at_period_end, false);
  assert.equal(created.body.payment_subscription_id, null);
  assert.equal(
    (await call(`/organizations/${memberOrg}/subscription`, { method: 'POST', body: { plan_tier: 'pro' } })).status,
    409,
  );
  const read = await call(`/organizations/${memberOrg}/subscription`, { token: memberToken });
  assert.equal(read.status, 200);
  assert.deepEqual(read.body, created.body);
  const byMember = await call(`/organizations/${memberOrg}/subscription`, {
    method: 'PATCH',
    token: memberToken,
    body: { plan_tier: 'enterprise' },
  });
  assert.equal(byMember.status, 403);
  assert.equal(
    (await call(`/organizations/${memberOrg}/subscription`, { method: 'POST', token: memberToken, body: {} })).status,
    403,
  );
  const other = await newOrg();
  assert.equal(
    (await call(`/organizations/${other}/subscription`, { token: memberToken })).status,
    404,
    'not a member: not visible',
  );
  assert.equal((await call(`/organizations/${other}/subscription`)).status, 404, 'no subscription yet');
  for (const body of [
    { plan_tier: 'gold' },
    { status: 'past_due' },
    { status: 'canceled' },
    { current_period_start: '2030-01-02T00:00:00Z', current_period_end: '2030-01-01T00:00:00Z' },
    { extra: true },
  ]) {
    const r = await call(`/organizations/${other}/subscription`, { method: 'POST', body });
    assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status}`);
  }
  const changed = await call(`/organizations/${memberOrg}/subscription`, {
    method: 'PATCH',
    body: { plan_tier: 'starter', cancel_at_period_end: true },
  });
  assert.equal(changed.body.plan_tier, 'starter');
  assert.equal(changed.body.cancel_at_period_end, true);
});

/** A subscription brought to `status` by allowed moves. */
async function subscriptionIn(status: SubscriptionStatus) {
  const org = await newOrg();
  const start = status === 'trialing' ? 'trialing' : 'active';
  assert.equal(
    (await call(`/organizations/${org}/subscription`, { method: 'POST', body: { status: start } })).status,
    201,
  );
  const path: Record<SubscriptionStatus, SubscriptionStatus[]> = {
    active: [],
    trialing: [],
    past_due: ['past_due'],
    unpaid: ['past_due', 'unpaid'],
    canceled: ['canceled'],
  };
  for (const s of path[status])
    assert.equal(
      (await call(`/organizations/${org}/subscription`, { method: 'PATCH', body: { status: s } })).status,
      200,
    );
  return org;
}

test('every status move of a subscription: the allowed ones happen, every other is 409 and changes nothing', async () => {
  let allowed = 0;
  let refused = 0;
  for (const from of SUBSCRIPTION_STATUSES) {
    for (const to of SUBSCRIPTION_STATUSES) {
      if (from === to) continue;
      const org = await subscriptionIn(from);
      const r = await call(`/organizations/${org}/subscription`, { method: 'PATCH', body: { status: to } });
      if (SUBSCRIPTION_MOVES[from].includes(to)) {
        assert.equal(r.status, 200, `${from} -> ${to}`);
        assert.equal(r.body.status, to);
        allowed++;
      } else {
        assert.equal(r.status, 409, `${from} -> ${to} should be refused`);
        assert.equal(r.body.error.code, 'CONFLICT');
        assert.equal((await call(`/organizations/${org}/subscription`)).body.status, from);
        refused++;
      }
    }
  }
  assert.equal(allowed, 11);
  assert.equal(refused, 9);
});

async function subscriptionOf(org: string) {
  return (await call(`/organizations/${org}/subscription`)).body;
}

test('webhooks: a subscription follows Stripe events (created, updated, deleted)', async () => {
  const org = await newOrg();
  const now = Math.floor(Date.now() / 1000);
  const s: SubscriptionState = {
    id: stripeId('sub'),
    customer: stripeId('cus'),
    status: 'trialing',
    organizationId: org,
    plan: 'pro',
    periodStart: now,
    periodEnd: now + 14 * 86_400,
  };
  let r = await deliver(hook, subscriptionEvent('customer.subscription.created', s, now - 50), { secret });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, { received: true, outcome: 'applied' });
  let sub = await subscriptionOf(org);
  assert.equal(sub.status, 'trialing');
  assert.equal(sub.plan_tier, 'pro');
  assert.equal(sub.payment_subscription_id, s.id);
  assert.equal(sub.payment_customer_id, s.customer);
  assert.equal(sub.current_period_start, new Date(now * 1000).toISOString());
  assert.equal(sub.current_period_end, new Date((now + 14 * 86_400) * 1000).toISOString());
  // Later events find it by the provider's subscription id, without metadata.
  const noMeta = { ...s, organizationId: undefined };
  for (const [status, at] of [
    ['active', now - 40],
    ['past_due', now - 30],
    ['unpaid', now - 20],
    ['active', now - 15],
  ] as const) {
    r = await deliver(hook, subscriptionEvent('customer.subscription.updated', { ...noMeta, status }, at), { secret });
    assert.equal(r.body.outcome, 'applied', `${status}: ${JSON.stringify(r.body)}`);
    assert.equal((await subscriptionOf(org)).status, status);
  }
  r = await deliver(
    hook,
    subscriptionEvent(
      'customer.subscription.updated',
      { ...noMeta, status: 'active', cancelAtPeriodEnd: true, plan: 'enterprise' },
      now - 10,
    ),
    { secret },
  );
  sub = await subscriptionOf(org);
  assert.equal(sub.cancel_at_period_end, true);
  assert.equal(sub.plan_tier, 'enterprise');
  r = await deliver(
    hook,
    subscriptionEvent('customer.subscription.deleted', { ...noMeta, status: 'canceled' }, now - 5),
    { secret },
  );
  assert.equal(r.body.outcome, 'applied');
  assert.equal((await subscriptionOf(org)).status, 'canceled');
  // Canceled is final: a newer event trying to revive it is recorded and refused.
  r = await deliver(hook, subscriptionEvent('customer.subscription.updated', { ...noMeta, status: 'active' }, now), {
    secret,
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.outcome, 'illegal_transition');
  assert.equal((await subscriptionOf(org)).status, 'canceled');
  // A new provider subscription for the organization takes the canceled one's place.
  const next: SubscriptionState = {
    id: stripeId('sub'),
    customer: s.customer,
    status: 'active',
    organizationId: org,
    plan: 'starter',
  };
  r = await deliver(hook, subscriptionEvent('customer.subscription.created', next, now + 1), { secret });
  assert.equal(r.body.outcome, 'applied');
  sub = await subscriptionOf(org);
  assert.equal(sub.payment_subscription_id, next.id);
  assert.equal(sub.status, 'active');
  assert.equal(sub.plan_tier, 'starter');
});

test('webhooks: an organization paying through one live Stripe subscription ignores events of another', async () => {
  const org = await newOrg();
  const now = Math.floor(Date.now() / 1000);
  const s: SubscriptionState = {
    id: stripeId('sub'),
    customer: stripeId('cus'),
    status: 'active',
    organizationId: org,
    plan: 'pro',
  };
  assert.equal(
    (await deliver(hook, subscriptionEvent('customer.subscription.created', s, now - 10), { secret })).body.outcome,
    'applied',
  );
  const other = await deliver(
    hook,
    subscriptionEvent('customer.subscription.created', { ...s, id: stripeId('sub'), plan: 'starter' }, now - 5),
    { secret },
  );
  assert.equal(other.body.outcome, 'other_subscription');
  const sub = await subscriptionOf(org);
  assert.equal(sub.payment_subscription_id, s.id);
  assert.equal(sub.plan_tier, 'pro');
});

test('webhooks: an illegal status move from the provider is recorded and refused, the state kept', async () => {
  const org = await newOrg();
  const now = Math.floor(Date.now() / 1000);
  const s: SubscriptionState = {
    id: stripeId('sub'),
    customer: stripeId('cus'),
    status: 'active',
    organizationId: org,
  };
  assert.equal(
    (await deliver(hook, subscriptionEvent('customer.subscription.created', s, now - 10), { secret })).body.outcome,
    'applied',
  );
  const r = await deliver(
    hook,
    subscriptionEvent('customer.subscription.updated', { ...s, status: 'unpaid' }, now - 5),
    { secret },
  );
  assert.equal(r.body.outcome, 'illegal_transition');
  assert.equal((await subscriptionOf(org)).status, 'active');
  const odd = await deliver(
    hook,
    subscriptionEvent('customer.subscription.updated', { ...s, status: 'incomplete' }, now - 4),
    { secret },
  );
  assert.equal(odd.body.outcome, 'unsupported_status');
  assert.equal((await subscriptionOf(org)).status, 'active');
});

test('webhooks: out-of-order events never roll the state back', async () => {
  const org = await newOrg();
  const now = Math.floor(Date.now() / 1000);
  const s: SubscriptionState = {
    id: stripeId('sub'),
    customer: stripeId('cus'),
    status: 'active',
    organizationId: org,
    plan: 'pro',
  };
  const created = subscriptionEvent('customer.subscription.created', s, now - 100);
  const pastDue = subscriptionEvent('customer.subscription.updated', { ...s, status: 'past_due' }, now - 60);
  const paid = subscriptionEvent(
    'customer.subscription.updated',
    { ...s, status: 'active', plan: 'enterprise' },
    now - 30,
  );
  // Delivered newest first: the newest is applied (the organization is known from its metadata), the older ones are stale.
  assert.equal((await deliver(hook, paid, { secret })).body.outcome, 'applied');
  assert.equal((await deliver(hook, pastDue, { secret })).body.outcome, 'stale');
  assert.equal((await deliver(hook, created, { secret })).body.outcome, 'stale');
  const sub = await subscriptionOf(org);
  assert.equal(sub.status, 'active');
  assert.equal(sub.plan_tier, 'enterprise');
  // A newer one still applies after the stale ones.
  assert.equal(
    (
      await deliver(hook, subscriptionEvent('customer.subscription.updated', { ...s, status: 'past_due' }, now - 10), {
        secret,
      })
    ).body.outcome,
    'applied',
  );
  assert.equal((await subscriptionOf(org)).status, 'past_due');
});

test('webhooks: a replayed event id is applied once, even delivered many times at once', async () => {
  const org = await newOrg();
  const now = Math.floor(Date.now() / 1000);
  const s: SubscriptionState = {
    id: stripeId('sub'),
    customer: stripeId('cus'),
    status: 'active',
    organizationId: org,
  };
  const first = subscriptionEvent('customer.subscription.created', s, now - 30);
  const pastDue = subscriptionEvent('customer.subscription.updated', { ...s, status: 'past_due' }, now - 20);
  const paid = subscriptionEvent('customer.subscription.updated', { ...s, status: 'active' }, now - 10);
  const burst = await Promise.all(Array.from({ length: 6 }, () => deliver(hook, first, { secret })));
  assert.deepEqual(burst.map((r) => r.body.outcome).sort(), [
    'applied',
    'duplicate',
    'duplicate',
    'duplicate',
    'duplicate',
    'duplicate',
  ]);
  assert.equal((await deliver(hook, pastDue, { secret })).body.outcome, 'applied');
  assert.equal((await deliver(hook, paid, { secret })).body.outcome, 'applied');
  // The past_due event again (a retry, or an attacker replaying a captured delivery): nothing changes.
  const replay = await deliver(hook, pastDue, { secret });
  assert.equal(replay.status, 200);
  assert.equal(replay.body.outcome, 'duplicate');
  assert.equal((await subscriptionOf(org)).status, 'active');
});

test('webhooks: bad signatures, old or future timestamps and malformed bodies are 400 and change nothing', async () => {
  const org = await newOrg();
  const now = Math.floor(Date.now() / 1000);
  const s: SubscriptionState = {
    id: stripeId('sub'),
    customer: stripeId('cus'),
    status: 'active',
    organizationId: org,
  };
  const event = subscriptionEvent('customer.subscription.created', s, now);
  const body = JSON.stringify(event);
  const refusals = [
    await deliver(hook, event, { secret: 'whsec_wrong' }),
    await deliver(hook, event, { secret, timestamp: now - 301 }),
    await deliver(hook, event, { secret, timestamp: now + 400 }),
    await deliver(hook, event, { secret, header: null }),
    await deliver(hook, event, { secret, header: `t=${now}` }),
    await deliver(hook, event, { secret, header: `t=${now},v0=${'0'.repeat(64)}` }),
    await deliver(hook, event, { secret, header: 'v1=abc' }),
    await deliver(hook, event, { secret, header: `t=soon,v1=${'0'.repeat(64)}` }),
    // Signed over another body: a tampered payload.
    await deliver(hook, body.replace('"active"', '"trialing"'), {
      secret,
      header: stripeSignatureHeader(body, secret, now),
    }),
    // A valid signature with the old timestamp re-signed by someone without the secret cannot be made: the t is signed too.
    await deliver(hook, event, {
      secret,
      header: stripeSignatureHeader(body, secret, now - 600).replace(`t=${now - 600}`, `t=${now}`),
    }),
  ];
  for (const r of refusals) {
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    assert.doesNotMatch(JSON.stringify(r.body), new RegExp(secret));
  }
  assert.equal((await call(`/organizations/${org}/subscription`)).status, 404, 'no refused event made a subscription');
  // The same event, properly signed (with the rolled secret), is then applied: nothing recorded its id before.
  const ok = await deliver(hook, event, { secret: rolledSecret });
  assert.equal(ok.body.outcome, 'applied');
  // Signed but not an event, or not JSON, or not JSON at all by content type.
  assert.equal((await deliver(hook, { hello: 'world' }, { secret })).status, 400);
  assert.equal((await deliver(hook, 'not json', { secret })).status, 400);
  assert.equal((await deliver(hook, event, { secret, contentType: 'text/plain' })).status, 415);
  // Signed, but not what Stripe sends: a bad id, a time no event has, a body beyond the limit.
  assert.equal((await deliver(hook, { ...event, id: 'evt bad id' }, { secret })).status, 400);
  assert.equal((await deliver(hook, { ...event, id: stripeId('evt'), created: 1e20 }, { secret })).status, 400);
  assert.equal(
    (await deliver(hook, { ...event, id: stripeId('evt'), padding: 'x'.repeat(600 * 1024) }, { secret })).status,
    413,
  );
  // Events the platform does not act on, and subscriptions it does not know, are acknowledged.
  assert.equal(
    (
      await deliver(
        hook,
        {
          id: stripeId('evt'),
          object: 'event',
          type: 'invoice.paid',
          created: now,
          data: { object: { object: 'invoice', id: stripeId('in') } },
        },
        { secret },
      )
    ).body.outcome,
    'ignored',
  );
  assert.equal(
    (
      await deliver(
        hook,
        subscriptionEvent(
          'customer.subscription.updated',
          { id: stripeId('sub'), customer: stripeId('cus'), status: 'active' },
          now,
        ),
        { secret },
      )
    ).body.outcome,
    'unknown_subscription',
  );
});
