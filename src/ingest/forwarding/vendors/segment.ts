import { genericOutcome } from './answers.ts';
import { eventId, eventName, isoTimestamp, sessionId, userId } from './event-fields.ts';
import { vendorEndpoint } from './endpoint.ts';
import type { VendorAdapter } from './types.ts';

/**
 * Segment's HTTP Tracking API batch method: `POST <host>/v1/batch` with HTTP Basic authentication (the write
 * key as user name, empty password) and `{batch:[{type:"track", event, userId?, anonymousId, properties,
 * timestamp, messageId}]}`. At most 500 KB per request and 32 KB per event, otherwise 400; Segment deduplicates
 * on `messageId`. Segment answers 200 for anything else it receives, including events it then drops.
 */
export const segmentAdapter: VendorAdapter = {
  kind: 'segment',
  // Segment's KB are 1,000 bytes: its documented 500 KB and 32 KB limits are 500,000 and 32,000 bytes.
  limits: { maxEvents: 1000, maxBytes: 500_000, maxEventBytes: 32_000 },
  record(event) {
    const user = userId(event);
    return JSON.stringify({
      type: 'track',
      event: eventName(event),
      ...(user ? { userId: user } : {}),
      anonymousId: sessionId(event),
      properties: event,
      timestamp: isoTimestamp(event),
      messageId: eventId(event),
    });
  },
  envelopeBytes: () => '{"batch":[]}'.length,
  request(records, target) {
    const auth = Buffer.from(`${target.credentials.write_key ?? ''}:`).toString('base64');
    return {
      url: vendorEndpoint(target.baseUrl, 'v1/batch').href,
      headers: { 'content-type': 'application/json', authorization: `Basic ${auth}` },
      body: `{"batch":[${records.join(',')}]}`,
    };
  },
  interpret: (answer) => genericOutcome(answer),
};
