import { genericOutcome, parseJson } from './answers.ts';
import { vendorEndpoint } from './endpoint.ts';
import { eventId, eventName, isoTimestamp, sessionId, userId, uuidFor } from './event-fields.ts';
import type { VendorAdapter } from './types.ts';

/**
 * PostHog's batch capture API: `POST <host>/batch/` with `{api_key, batch:[{event, distinct_id, properties,
 * timestamp, uuid}]}`, answered 200 `{status:1}`. The request may be up to 20 MB and an event up to 1 MB;
 * PostHog deduplicates on `uuid`. Error bodies are `{type, code, detail}`.
 */
export const posthogAdapter: VendorAdapter = {
  kind: 'posthog',
  limits: { maxEvents: 1000, maxBytes: 20 * 1024 * 1024, maxEventBytes: 1024 * 1024 },
  record(event) {
    return JSON.stringify({
      event: eventName(event),
      distinct_id: userId(event) ?? sessionId(event),
      properties: event,
      timestamp: isoTimestamp(event),
      uuid: uuidFor(eventId(event)),
    });
  },
  envelopeBytes: (target) => JSON.stringify({ api_key: target.credentials.api_key ?? '', batch: [] }).length,
  request(records, target) {
    const head = JSON.stringify({ api_key: target.credentials.api_key ?? '' }).slice(0, -1);
    return {
      url: vendorEndpoint(target.baseUrl, 'batch/').href,
      headers: { 'content-type': 'application/json' },
      body: `${head},"batch":[${records.join(',')}]}`,
    };
  },
  interpret(answer) {
    const detail = parseJson(answer.text)?.detail;
    return genericOutcome(answer, typeof detail === 'string' ? detail : undefined);
  },
};
