/** When an event happened and its place in the session, taken when it happens even if it is handed over later. */
export interface Stamp {
  now: number;
  session: string;
  sequence: number;
}

/** How a capture hands an event to the client: its type, its fields beyond the common ones, and its stamp when taken earlier. */
export type Emit = (type: string, fields: Record<string, unknown>, at?: Stamp) => void;
