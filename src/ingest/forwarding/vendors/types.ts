/** An event as stored (the JSON object received), with the row id that ties it to its outbox entry. */
export interface StoredEvent {
  rowId: number;
  body: Record<string, unknown>;
}

/** What the vendor answered, read within the time limit (body cut at a few kilobytes: only errors are read from it). */
export interface VendorAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export type Outcome =
  /** Every event of the request is delivered. */
  | { kind: 'delivered' }
  /** Worth trying again later (network error, 408, 429, 5xx); `retryAfterMs` when the vendor said how long to wait. */
  | { kind: 'retry'; reason: string; retryAfterMs?: number | undefined }
  /**
   * Refused as a whole and resending the same request cannot help. `scope` says whether it is about the
   * destination (credentials: every request would fail the same way) or about the payload (some event in it).
   */
  | { kind: 'rejected'; reason: string; scope: 'destination' | 'payload' }
  /**
   * Some events named by their index in the request failed. `othersDelivered` tells whether the rest were taken
   * (Mixpanel imports the valid ones) or must be sent again (Amplitude takes nothing from a request with invalid events).
   */
  | { kind: 'partial'; failed: Map<number, string>; othersDelivered: boolean };

export interface Limits {
  /** Events per request. */
  maxEvents: number;
  /** Bytes of one request body, envelope included. */
  maxBytes: number;
  /** Bytes of one event as the vendor receives it. */
  maxEventBytes: number;
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a destination's adapter works from: its URL, its non-secret settings and its opened credentials. */
export interface DestinationTarget {
  id: string;
  baseUrl: string;
  settings: Record<string, unknown>;
  credentials: Record<string, string>;
}

/** One vendor: how to shape a batch into its request and how to read its answer. */
export interface VendorAdapter {
  kind: string;
  limits: Limits;
  /** Serialises one event as the element of the vendor's array (used for size checks and then joined). */
  record(event: Record<string, unknown>, target: DestinationTarget): string;
  /** Builds the request from serialised records; the body is the envelope around `records.join(',')`. */
  request(records: string[], target: DestinationTarget): HttpRequest;
  /** Bytes the envelope adds around the joined records (an upper bound). */
  envelopeBytes(target: DestinationTarget): number;
  interpret(answer: VendorAnswer, count: number): Outcome;
}
