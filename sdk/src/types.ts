/** An event of Document 3 part (B): field names contain dots exactly as written. */
export type IngestEvent = Record<string, unknown> & {
  event_id: string;
  project_id: string;
  'session.id': string;
  'event.type': string;
  'event.timestamp': string;
  'event.sequence': number;
};

/** The event types of the contract; any other name given to `track` is sent as `custom` with `event.name`. */
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

export interface Rejection {
  event: IngestEvent;
  /** The service's `<field>: <reason>`, or why the whole request was refused. */
  error: string;
}

export interface CaptureOptions {
  /** `page.view` at start and on single-page-app navigation, `page.leave` with `duration_ms`. Default true. */
  pageViews?: boolean;
  /** `ui.click` on interactive elements. Default true. */
  clicks?: boolean;
  /** `ui.submit` on form submission, never field values. Default true. */
  forms?: boolean;
  /** `error` for uncaught errors and unhandled rejections. Default true. */
  errors?: boolean;
  /** `api.request` / `api.response` for fetch and XMLHttpRequest: method, path, status, duration. Default true. */
  network?: boolean;
  /** `performance` events from the `web-vitals` package, loaded as a second module when true. Default false. */
  webVitals?: boolean;
}

export interface InitOptions {
  /** The ingest service's base URL, e.g. `https://ingest.example.com`, or a path of the page's origin (`/telemetry`) that a proxy forwards to it. */
  endpoint: string;
  apiKey: string;
  projectId: string;
  capture?: CaptureOptions;
  /** Events per request: sent when this many are queued. Default 50, at most 1,000. */
  batchSize?: number;
  /** Queued events are sent at least this often. Default 5,000 ms. */
  flushIntervalMs?: number;
  /** A session ends after this long without an event. Default 30 minutes. */
  sessionTimeoutMs?: number;
  /** Events kept while the service cannot be reached; the oldest are dropped beyond it. Default 5,000. */
  maxQueuedEvents?: number;
  /** Text inside an element carrying this attribute is never captured. Default `data-ingest-mask`. */
  maskAttribute?: string;
  /** Capture nothing when the browser sends Do Not Track or Global Privacy Control. Default false. */
  respectPrivacySignals?: boolean;
  /**
   * Start opted out: capture nothing, store nothing, until `optIn()` (a consent banner's "accept"). The choice is
   * remembered per project in localStorage, so a visitor who opted in once is captured on later visits. Default false.
   */
  requireConsent?: boolean;
  /** Keep the queue in IndexedDB so events survive reloads while offline. Default true. */
  persist?: boolean;
  /** Sees every event before it is queued: return it (edited or not) to keep it, or null to drop it. */
  beforeSend?: (event: IngestEvent) => IngestEvent | null | undefined | false;
  /** Events the service refused: they are dropped, never retried. */
  onRejected?: (rejections: Rejection[]) => void;
  /** Delays between retries: exponential from `retryBaseMs` up to `retryMaxMs`, with jitter. Defaults 1,000 and 60,000 ms. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}
