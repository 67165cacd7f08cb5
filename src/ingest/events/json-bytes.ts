/** The bytes of JSON's syntax, for the readers that work on a request's bytes (depth.ts, raw-events.ts, fast-batch.ts). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const MINUS = 0x2d;
export const PLUS = 0x2b;
export const DOT = 0x2e;
export const DIGIT_0 = 0x30;
export const DIGIT_9 = 0x39;
export const LOWER_E = 0x65;
export const UPPER_E = 0x45;
export const LOWER_T = 0x74;
export const LOWER_F = 0x66;
export const LOWER_N = 0x6e;

/** Escapes JSON.stringify writes itself: \" \\ \b \f \n \r \t. */
export const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
