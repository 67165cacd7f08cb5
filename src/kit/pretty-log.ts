/**
 * pino's JSON lines as one readable line each, for a person watching `npm start` in a terminal (LOG_FORMAT): time,
 * level, service, message, then the entry's other fields as key=value; a request is `GET /path 200 3 ms`, an error's
 * stack follows on its own lines. A few lines instead of pino-pretty: no dependency, no worker thread.
 */

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLOURS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
// Shown in the line's own places (or of no use to a person reading it), not repeated as key=value.
const PLACED = new Set(['level', 'time', 'pid', 'hostname', 'service', 'msg', 'req', 'res', 'responseTime', 'err']);

interface Entry {
  level?: number;
  time?: number;
  service?: string;
  msg?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
  [key: string]: unknown;
}

function clock(time: number | undefined): string {
  const d = time === undefined ? new Date() : new Date(time);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** One entry as a person reads it; a line that is not pino's JSON is kept as it is. */
export function prettyLine(json: string, colour: boolean): string {
  let e: Entry;
  try {
    e = JSON.parse(json) as Entry;
  } catch {
    return json;
  }
  if (typeof e !== 'object' || e === null) return json;
  const level = LEVELS[e.level ?? 30] ?? String(e.level);
  const shownLevel = colour ? `\x1b[${COLOURS[e.level ?? 30] ?? '0'}m${level.padEnd(5)}\x1b[0m` : level.padEnd(5);
  const parts = [clock(e.time), shownLevel, (e.service ?? '').padEnd(9)];
  if (e.req?.method && e.res?.statusCode !== undefined) {
    const ms = e.responseTime === undefined ? '' : ` ${Math.round(e.responseTime)} ms`;
    parts.push(`${e.req.method} ${e.req.url} ${e.res.statusCode}${ms}`);
    if (e.msg && e.msg !== 'request completed') parts.push(e.msg);
  } else parts.push(e.msg ?? '');
  for (const [k, v] of Object.entries(e)) if (!PLACED.has(k) && v !== undefined) parts.push(`${k}=${value(v)}`);
  if (e.err?.message && !e.msg?.includes(e.err.message)) parts.push(`err=${value(e.err.message)}`);
  const stack = e.err?.stack ? `\n${e.err.stack.replace(/^/gm, '    ')}` : '';
  return `${parts.join(' ')}${stack}`;
}

/** A destination for pino that writes each entry to `out` as prettyLine, coloured on a terminal unless NO_COLOR. */
export function prettyLogStream(out: NodeJS.WritableStream & { isTTY?: boolean }): { write(chunk: string): void } {
  const colour = out.isTTY === true && !process.env.NO_COLOR;
  return {
    write(chunk) {
      for (const line of chunk.split('\n')) if (line) out.write(`${prettyLine(line, colour)}\n`);
    },
  };
}
