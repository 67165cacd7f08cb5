import { describe, genericOutcome, parseJson } from './answers.ts';
import { epochMs, eventId, eventName, mixpanelInsertId, sessionId, userId } from './event-fields.ts';
import { vendorEndpoint } from './endpoint.ts';
import type { DestinationTarget, VendorAdapter } from './types.ts';

/**
 * Mixpanel's Import API: `POST <host>/import?strict=1[&project_id=..]` with a JSON array of
 * `{event, properties:{time, distinct_id, $insert_id, ...}}`, authenticated with HTTP Basic as a service account
 * (user name and secret, with `project_id`) or with the project token as user name. At most 2,000 events and
 * 10 MB uncompressed per request, 1 MB per event. With strict mode a 400 lists `failed_records`
 * (`index`, `insert_id`, `field`, `message`) while the other events are imported. Mixpanel deduplicates on `$insert_id`.
 */
export const mixpanelAdapter: VendorAdapter = {
  kind: 'mixpanel',
  limits: { maxEvents: 2000, maxBytes: 10 * 1024 * 1024, maxEventBytes: 1024 * 1024 },
  record(event) {
    // The event's own fields first, then the ones Mixpanel reserves, so an unknown field named `time` cannot break the import.
    return JSON.stringify({
      event: eventName(event),
      properties: {
        ...event,
        time: epochMs(event),
        distinct_id: userId(event) ?? sessionId(event),
        $insert_id: mixpanelInsertId(eventId(event)),
      },
    });
  },
  envelopeBytes: () => 2,
  request(records, target: DestinationTarget) {
    const url = vendorEndpoint(target.baseUrl, 'import');
    url.searchParams.set('strict', '1');
    const c = target.credentials;
    let user: string;
    let password = '';
    if (c.service_account_username) {
      user = c.service_account_username;
      password = c.service_account_secret ?? '';
      url.searchParams.set('project_id', String(target.settings.project_id ?? ''));
    } else {
      user = c.project_token ?? '';
    }
    return {
      url: url.href,
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
      },
      body: `[${records.join(',')}]`,
    };
  },
  interpret(answer) {
    const body = parseJson(answer.text);
    const error = typeof body?.error === 'string' ? body.error : undefined;
    if (answer.status === 400 && Array.isArray(body?.failed_records) && body.failed_records.length > 0) {
      const failed = new Map<number, string>();
      for (const r of body.failed_records as Record<string, unknown>[]) {
        if (typeof r?.index !== 'number') continue;
        failed.set(
          r.index,
          `mixpanel rejected the event: ${r.field ? `${String(r.field)}: ` : ''}${String(r.message ?? error ?? 'invalid')}`,
        );
      }
      if (failed.size > 0) return { kind: 'partial', failed, othersDelivered: true };
      return { kind: 'rejected', reason: describe(answer, error), scope: 'payload' };
    }
    return genericOutcome(answer, error);
  },
};
