/** The event types of ingest's contract (src/ingest/events/fields.ts), for the screens' type filters. */
export const EVENT_TYPES = [
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
] as const;
