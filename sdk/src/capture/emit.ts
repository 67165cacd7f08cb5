/** How a capture hands an event to the client: its type and its fields beyond the common ones. */
export type Emit = (type: string, fields: Record<string, unknown>) => void;
