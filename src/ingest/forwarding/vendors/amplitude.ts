import { describe, genericOutcome, parseJson } from './answers.ts';
import { epochMs, eventId, eventName, sessionId, userId } from './event-fields.ts';
import { vendorEndpoint } from './endpoint.ts';
import type { VendorAdapter } from './types.ts';

/**
 * Amplitude's HTTP V2 API: `POST <host>/2/httpapi` with `{api_key, events:[{event_type, user_id?, device_id,
 * time, insert_id, event_properties}], options?}`. Under 1 MB and 2,000 events per request (413 otherwise).
 * A 400 naming events (`events_with_invalid_fields`, `events_with_missing_fields`, `silenced_events`) ingests
 * nothing: those events are removed and the rest sent again. Amplitude deduplicates on `insert_id` for 7 days.
 * A 429 (throttled) is retried like any other: after its Retry-After when given, otherwise after the configured
 * backoff of the destination (INGEST_FORWARDING_RETRY_BASE_MS doubling up to INGEST_FORWARDING_RETRY_MAX_MS).
 */
export const amplitudeAdapter: VendorAdapter = {
  kind: 'amplitude',
  limits: { maxEvents: 1000, maxBytes: 1_000_000, maxEventBytes: 1_000_000 },
  record(event) {
    const user = userId(event);
    return JSON.stringify({
      event_type: eventName(event),
      ...(user ? { user_id: user } : {}),
      device_id: sessionId(event),
      time: epochMs(event),
      insert_id: eventId(event),
      event_properties: event,
    });
  },
  envelopeBytes: (target) =>
    JSON.stringify({ api_key: target.credentials.api_key ?? '', events: [], options: optionsOf(target.settings) ?? {} })
      .length,
  request(records, target) {
    const options = optionsOf(target.settings);
    const head = JSON.stringify({ api_key: target.credentials.api_key ?? '', ...(options ? { options } : {}) }).slice(
      0,
      -1,
    );
    return {
      url: vendorEndpoint(target.baseUrl, '2/httpapi').href,
      headers: { 'content-type': 'application/json', accept: '*/*' },
      body: `${head},"events":[${records.join(',')}]}`,
    };
  },
  interpret(answer) {
    const body = parseJson(answer.text);
    const error = typeof body?.error === 'string' ? body.error : undefined;
    if (answer.status === 400 && body) {
      const failed = new Map<number, string>();
      const byField = (key: string, what: string) => {
        const m = body[key];
        if (!m || typeof m !== 'object') return;
        for (const [field, indexes] of Object.entries(m as Record<string, unknown>)) {
          if (!Array.isArray(indexes)) continue;
          for (const i of indexes)
            if (typeof i === 'number') failed.set(i, `amplitude rejected the event: ${what} field ${field}`);
        }
      };
      byField('events_with_invalid_fields', 'invalid');
      byField('events_with_missing_fields', 'missing');
      if (Array.isArray(body.silenced_events))
        for (const i of body.silenced_events)
          if (typeof i === 'number') failed.set(i, 'amplitude rejected the event: its device is silenced');
      if (failed.size > 0) return { kind: 'partial', failed, othersDelivered: false };
      // "Invalid API key" and a missing api_key are about the destination, not this payload.
      if (/api.?key/i.test(error ?? '') || body.missing_field === 'api_key')
        return { kind: 'rejected', reason: describe(answer, error), scope: 'destination' };
    }
    return genericOutcome(answer, error);
  },
};

function optionsOf(settings: Record<string, unknown>): Record<string, unknown> | undefined {
  return typeof settings.min_id_length === 'number' ? { min_id_length: settings.min_id_length } : undefined;
}
