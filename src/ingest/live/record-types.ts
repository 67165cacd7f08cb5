/** What the live stream sends (records.ts builds them), shared with the console's live view: no imports, on purpose. */

/** One event as the live stream sends it: accepted (stored) or rejected, with why. */
export type LiveRecord = AcceptedRecord | RejectedRecord;

export interface AcceptedRecord {
  kind: 'accepted';
  project_id: string;
  at: string;
  event_id: string;
  type: string;
  session_id: string;
  user_id: string | null;
  /** The event as stored, when under LIVE_BODY_BYTES; `truncated` otherwise. */
  body: Record<string, unknown> | null;
  truncated: boolean;
}

export interface RejectedRecord {
  kind: 'rejected';
  /** null: the request could not be tied to a project (no key, an unknown key, a refused origin's preflight). */
  project_id: string | null;
  at: string;
  /** The rule broken, as in the service's metrics (`required`, `unauthorized`, `origin_refused`, ...). */
  reason: string;
  /** The message the client was answered. */
  error: string;
  /** The event's position in its batch, for a single rejected event; null for a refused request. */
  index: number | null;
  event_id: string | null;
  type: string | null;
  session_id: string | null;
  user_id: string | null;
  origin: string | null;
}
