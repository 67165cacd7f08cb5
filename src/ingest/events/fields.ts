/** The event contract of part (B): field names contain dots exactly as written (`"event.type"` is one key). */

export const EVENT_TYPES: ReadonlySet<string> = new Set([
  'page.view',
  'page.leave',
  'ui.click',
  'ui.input',
  'ui.scroll',
  'ui.focus',
  'ui.blur',
  'ui.submit',
  'state.change',
  'api.request',
  'api.response',
  'journey.step',
  'error',
  'performance',
  'custom',
]);

/** Required string fields, in the order their absence is reported. `session.id` is the spec's garbled `{base_url}` row. */
export const REQUIRED_FIELDS = ['event_id', 'project_id', 'session.id', 'event.type', 'event.timestamp'] as const;

export type OptionalKind = 'string' | 'json-string' | 'count' | 'status-code' | 'object';

/**
 * Optional fields and their types. Integers the spec describes as positions or durations cannot be
 * negative and an HTTP status code lies in 100–599; `ui.state.before/after` are strings holding JSON.
 */
export const OPTIONAL_FIELDS: readonly (readonly [string, OptionalKind])[] = [
  ['user.id', 'string'],
  ['event.name', 'string'],
  ['event.sequence', 'count'],
  ['page.path', 'string'],
  ['page.title', 'string'],
  ['page.url', 'string'],
  ['page.referrer', 'string'],
  ['ui.component.name', 'string'],
  ['ui.component.path', 'string'],
  ['ui.component.type', 'string'],
  ['ui.action', 'string'],
  ['ui.element', 'string'],
  ['ui.element.text', 'string'],
  ['ui.state.key', 'string'],
  ['ui.state.before', 'json-string'],
  ['ui.state.after', 'json-string'],
  ['api.method', 'string'],
  ['api.path', 'string'],
  ['api.status_code', 'status-code'],
  ['api.duration_ms', 'count'],
  ['error.type', 'string'],
  ['error.message', 'string'],
  ['error.stack', 'string'],
  ['duration_ms', 'count'],
  ['gen_ai.journey.id', 'string'],
  ['gen_ai.journey.step.id', 'string'],
  ['gen_ai.journey.step.name', 'string'],
  ['metadata', 'object'],
];

export const MAX_EVENTS_PER_BATCH = 1_000;
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
export const MAX_EVENT_BYTES = 100 * 1024;
/** Objects and arrays within one field of an event: ample for real payloads, far below what V8's JSON.stringify and jsonb can take. */
export const MAX_NESTING = 64;
/**
 * Nesting of a whole body beyond which it is refused before parsing. A valid event sits 3 levels down (body, events,
 * event) and its fields nest at most MAX_NESTING: between the two an event is rejected on its own, beyond it the body.
 */
export const MAX_BODY_NESTING = 128;
/**
 * JSON values (objects, arrays, members and elements) a body may hold: a thousand per event on average, far more than
 * any vendor keeps (Mixpanel 255 properties, Amplitude 1,024), while bounding what one parse builds (~60 MB at most).
 */
export const MAX_BODY_VALUES = 1_000_000;
/**
 * Bodies longer than this (in characters) are read for nesting and values before parsing. Below it the read is
 * not worth its cost (about half of JSON.parse's, measured on a 600 KB batch): a smaller body cannot build more
 * than ~30 MB however it is shaped, nor hold a million values, and its too-deep events are rejected one by one.
 */
export const SCANNED_BODY_BYTES = 1024 * 1024;
/** The unique index on (project_id, event_id) cannot hold arbitrarily long keys; 256 characters is ample for any id scheme. */
export const MAX_ID_LENGTH = 256;
