import type { Emit, Stamp } from './capture/emit.ts';
import { captureErrors } from './capture/errors.ts';
import { captureForms, captureClicks } from './capture/interactions.ts';
import { captureNetwork } from './capture/network.ts';
import { capturePages } from './capture/pages.ts';
import { withoutQuery } from './capture/url.ts';
import { createConsent, type Choice } from './consent.ts';
import { uuid } from './ids.ts';
import { createQueue } from './queue.ts';
import { createSession } from './session.ts';
import { openStore } from './store.ts';
import { EVENT_TYPES, type IngestEvent, type InitOptions } from './types.ts';

export type { CaptureOptions, IngestEvent, InitOptions, Rejection } from './types.ts';

export interface JourneyStep {
  journeyId: string;
  stepId: string;
  stepName?: string;
  fields?: Record<string, unknown>;
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

interface Client {
  options: InitOptions;
  emit: Emit;
  queue: ReturnType<typeof createQueue>;
  /** Hands over what a capture still holds back (a navigation's view waiting for its title). */
  settle(): void;
  stops: (() => void)[];
  ready: Promise<void>;
  consent: ReturnType<typeof createConsent>;
  /** Whether the visitor has opted out; the first time it is seen, forgets what was queued and the session. */
  blocked(): boolean;
}

let client: Client | undefined;
let userId: string | undefined;
/** A choice made before `init` (a consent banner that loads first), applied and kept by `init`. */
let earlyChoice: Choice | undefined;

function privacySignal(): boolean {
  const nav = navigator as Navigator & { globalPrivacyControl?: boolean; msDoNotTrack?: string };
  return (
    nav.globalPrivacyControl === true ||
    nav.doNotTrack === '1' ||
    (window as { doNotTrack?: string }).doNotTrack === '1'
  );
}

/**
 * Starts the SDK once per page: later calls return without effect until `shutdown()`. Captures nothing at all
 * when `respectPrivacySignals` is set and the browser sends Do Not Track or Global Privacy Control.
 */
export function init(options: InitOptions): void {
  if (client || (options.respectPrivacySignals && privacySignal())) return;
  if (!options.endpoint) throw new TypeError("ingest SDK: init needs an endpoint, the ingest service's base URL");
  // Resolved against the page: a same-origin proxy path (`/telemetry`) or a differently spelt origin (`HTTP://…`,
  // `:443`) must still be recognised by the network capture as the SDK's own requests, or each send makes events.
  const endpoint = new URL(options.endpoint, location.href).href.replace(/\/+$/, '');
  const url = `${endpoint}/v1/events`;
  const capture = options.capture ?? {};
  const mask = options.maskAttribute ?? 'data-ingest-mask';
  const session = createSession(options.projectId, options.sessionTimeoutMs ?? 30 * 60_000);
  const consent = createConsent(options.projectId, options.requireConsent === true);
  if (earlyChoice) consent.set(earlyChoice);
  earlyChoice = undefined;
  // Set once what an opt-out must remove is gone, so each later event of an opted-out page costs one storage read.
  let wiped = false;
  const blocked = (): boolean => {
    if (!consent.optedOut()) {
      wiped = false;
      return false;
    }
    if (!wiped) {
      wiped = true;
      session.forget();
      queue.clear();
    }
    return true;
  };
  let persist: (events: IngestEvent[]) => void = () => {};
  const storePromise = openStore(options.projectId, options.persist !== false);
  const queue = createQueue({
    url,
    apiKey: options.apiKey,
    batchSize: Math.min(1000, Math.max(1, options.batchSize ?? 50)),
    flushIntervalMs: options.flushIntervalMs ?? 5000,
    maxQueuedEvents: options.maxQueuedEvents ?? 5000,
    retryBaseMs: options.retryBaseMs ?? 1000,
    retryMaxMs: options.retryMaxMs ?? 60_000,
    // Writes before the store opens are replayed into it once it has.
    store: {
      load: async () => [],
      put: (e) => persist([...e]),
      remove: (ids) => void storePromise.then((s) => s.remove(ids)),
      clear: () => {
        early.length = 0;
        void storePromise.then((s) => s.clear());
      },
    },
    blocked,
    onRejected: options.onRejected,
  });
  const early: IngestEvent[] = [];
  persist = (e) => early.push(...e);
  const ready = storePromise.then(async (store) => {
    persist = (e) => store.put(e);
    store.put(early);
    // Events stored before an opt-out (in this tab or another) are removed rather than sent.
    if (blocked()) store.clear();
    else queue.add(await store.load(), false);
  });

  const stamp = (): Stamp => {
    const now = Date.now();
    // No session is started (and stored) for an event that will not be sent.
    if (blocked()) return { now, session: '', sequence: 0 };
    const { id, sequence } = session.next(now);
    return { now, session: id, sequence };
  };
  const emit: Emit = (type, fields, at = stamp()) => {
    if (blocked()) return;
    let event: IngestEvent | null | undefined | false = {
      event_id: uuid(),
      project_id: options.projectId,
      'session.id': at.session,
      'event.type': type,
      'event.timestamp': new Date(at.now).toISOString(),
      'event.sequence': at.sequence,
      'page.path': location.pathname,
      'page.url': location.origin + location.pathname,
      'page.title': document.title,
      ...(userId ? { 'user.id': userId } : {}),
      ...fields,
    };
    if (options.beforeSend) {
      try {
        event = options.beforeSend(event);
      } catch {
        event = null;
      }
    }
    if (event) queue.add([event]);
  };

  const stops: (() => void)[] = [];
  let settle = () => {};
  if (capture.pageViews !== false) {
    const pages = capturePages(emit, stamp);
    settle = pages.settle;
    stops.push(pages.stop);
  }
  if (capture.clicks !== false) stops.push(captureClicks(emit, mask));
  if (capture.forms !== false) stops.push(captureForms(emit, mask));
  if (capture.errors !== false) stops.push(captureErrors(emit));
  if (capture.network !== false) stops.push(captureNetwork(emit, url));
  if (capture.webVitals) {
    // A second module, so pages that do not want web vitals never download them.
    const vitals = new URL('./v1-vitals.js', import.meta.url).href;
    import(/* @vite-ignore */ vitals).then(
      (m: { startVitals(e: typeof emit): void }) => m.startVitals(emit),
      () => {},
    );
  }
  const onHidden = () => {
    if (document.visibilityState === 'hidden') queue.flushOnHide();
  };
  const onOnline = () => queue.online();
  addEventListener('pagehide', queue.flushOnHide);
  document.addEventListener('visibilitychange', onHidden);
  addEventListener('online', onOnline);
  stops.push(() => {
    removeEventListener('pagehide', queue.flushOnHide);
    document.removeEventListener('visibilitychange', onHidden);
    removeEventListener('online', onOnline);
    queue.stop();
  });
  client = { options, emit, queue, settle, stops, ready, consent, blocked };
}

function choose(choice: Choice): void {
  const c = client;
  if (!c) {
    earlyChoice = choice;
    return;
  }
  const wasOut = c.consent.optedOut();
  c.consent.set(choice);
  c.blocked();
  // The view of the page where consent is given was not recorded at load: without it the visit would start mid-page.
  if (wasOut && choice === 'in' && c.options.capture?.pageViews !== false) page();
}

/**
 * Stops all capture for this project in this browser until `optIn()`, across reloads and tabs (kept in
 * localStorage): nothing is captured or sent, and the queue (in memory and IndexedDB) and the session are removed.
 * Before `init` the choice is remembered and applied by it.
 */
export function optOut(): void {
  choose('out');
}

/** Resumes capture after `optOut()`, or gives the consent `requireConsent` waits for; records a view of the page. */
export function optIn(): void {
  choose('in');
}

/** Whether capture is off by the visitor's choice (or, with `requireConsent`, for want of one). */
export function hasOptedOut(): boolean {
  return client ? client.consent.optedOut() : earlyChoice === 'out';
}

/** Records an event: a contract type (`ui.click`, `state.change`, ...) or any other name, sent as `custom` with `event.name`. */
export function track(type: string, fields: Record<string, unknown> = {}): void {
  if (!client) return;
  if (KNOWN_TYPES.has(type)) client.emit(type, fields);
  else client.emit('custom', { 'event.name': type, ...fields });
}

/** A `page.view` by hand, for pages whose navigation the History API does not show. */
export function page(fields: Record<string, unknown> = {}): void {
  client?.emit('page.view', { 'page.referrer': withoutQuery(document.referrer), ...fields });
}

/**
 * Sets `user.id` on every later event; `undefined` forgets it (on sign-out). A number (a database id, from code
 * without types) is sent as its text: the service takes `user.id` only as a string and would refuse every event.
 */
export function identify(id: string | number | undefined | null): void {
  userId = id === undefined || id === null || id === '' ? undefined : String(id);
}

/** A `journey.step` of a `gen_ai.journey`. */
export function journeyStep(step: JourneyStep): void {
  client?.emit('journey.step', {
    'gen_ai.journey.id': String(step.journeyId),
    'gen_ai.journey.step.id': String(step.stepId),
    ...(step.stepName ? { 'gen_ai.journey.step.name': String(step.stepName) } : {}),
    ...step.fields,
  });
}

/** Sends what is queued now; resolves when the service has answered (or a retry is scheduled). */
export async function flush(): Promise<void> {
  if (!client) return;
  client.settle();
  await client.ready;
  await client.queue.flush();
}

/** Sends what is queued, then stops every capture and timer; `init` may be called again afterwards. */
export async function shutdown(): Promise<void> {
  const c = client;
  if (!c) return;
  await flush();
  for (const stop of c.stops) stop();
  client = undefined;
}
