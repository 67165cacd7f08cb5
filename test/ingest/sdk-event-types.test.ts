import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_TYPES as CONTRACT_TYPES } from '../../src/ingest/events/fields.ts';
import { EVENT_TYPES as SDK_TYPES } from '../../sdk/src/types.ts';

// The SDK is published on its own and cannot import the service, so its copy of the contract's types is held to it here.
test("the browser SDK knows exactly the event types the service accepts, in the service's order", () => {
  assert.deepEqual([...SDK_TYPES], [...CONTRACT_TYPES]);
});
