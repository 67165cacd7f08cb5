import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { verifyStripeSignature } from '../../src/identity/billing/stripe-signature.ts';
import { stripeSignatureHeader } from '../support/vendors/stripe.ts';

// A fixed vector of Stripe's documented scheme ("Verify manually"): the header is `t=<unix>,v1=<hex>`, where the hex is
// the HMAC-SHA256, keyed with the endpoint's secret, of the timestamp, a dot and the raw payload.
const SECRET = 'whsec_7ZqS1c9uXbL2mN4pR6tV8wY0aC3eG5iK';
const TIMESTAMP = 1_700_000_000;
const PAYLOAD = '{"id":"evt_1OaKnownVector","object":"event","type":"customer.subscription.updated"}';
const EXPECTED_V1 = '7eabc403a1c1bfff3d6199783d79620f048af5f4f587c872f96e9839155c623d';
const HEADER = `t=${TIMESTAMP},v1=${EXPECTED_V1}`;
const AT = (TIMESTAMP + 10) * 1000;

test("the known vector is Stripe's scheme, and the tests' stand-in signs exactly that", () => {
  const computed = createHmac('sha256', SECRET).update(`${TIMESTAMP}.${PAYLOAD}`, 'utf8').digest('hex');
  assert.equal(computed, EXPECTED_V1);
  assert.equal(stripeSignatureHeader(PAYLOAD, SECRET, TIMESTAMP), HEADER);
});

test('the product accepts the header Stripe would send for the known vector', () => {
  assert.doesNotThrow(() => verifyStripeSignature(Buffer.from(PAYLOAD), HEADER, [SECRET], AT));
  // Among several v1 values (a secret roll) and with an unknown scheme beside them.
  assert.doesNotThrow(() =>
    verifyStripeSignature(
      Buffer.from(PAYLOAD),
      `t=${TIMESTAMP},v1=${'0'.repeat(64)},v1=${EXPECTED_V1},v0=ab`,
      [SECRET],
      AT,
    ),
  );
  // With the endpoint's other secret listed first.
  assert.doesNotThrow(() => verifyStripeSignature(Buffer.from(PAYLOAD), HEADER, ['whsec_other', SECRET], AT));
});

test('the product refuses the known vector tampered with: payload, timestamp, signature or secret', () => {
  const refused = { statusCode: 400, code: 'VALIDATION_ERROR', message: /no signature matches the payload/ };
  const tamperedPayload = PAYLOAD.replace('updated', 'deleted');
  assert.throws(() => verifyStripeSignature(Buffer.from(tamperedPayload), HEADER, [SECRET], AT), refused);
  assert.throws(
    () => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${TIMESTAMP + 1},v1=${EXPECTED_V1}`, [SECRET], AT),
    refused,
  );
  const flipped = `${EXPECTED_V1.slice(0, -1)}${EXPECTED_V1.endsWith('d') ? 'e' : 'd'}`;
  assert.throws(
    () => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${TIMESTAMP},v1=${flipped}`, [SECRET], AT),
    refused,
  );
  assert.throws(() => verifyStripeSignature(Buffer.from(PAYLOAD), HEADER, ['whsec_not_this_one'], AT), refused);
  // The same signature outside Stripe's five-minute tolerance.
  assert.throws(() => verifyStripeSignature(Buffer.from(PAYLOAD), HEADER, [SECRET], (TIMESTAMP + 301) * 1000), {
    statusCode: 400,
    message: /beyond the 300 s tolerance/,
  });
});
