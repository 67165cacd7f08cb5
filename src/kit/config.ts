import { existsSync } from 'node:fs';

/**
 * Configuration comes from environment variables only (plus an optional `.env` file loaded by the
 * CLI). Each variable is declared once with its parser and documentation, so validation, defaults
 * and `docs/configuration.md` cannot drift apart: a test checks that every declared name is documented.
 */
export interface Variable<T> {
  readonly name: string;
  readonly expects: string;
  readonly doc: string;
  readonly secret: boolean;
  readonly parse: (raw: string) => T | undefined;
  readonly fallback: (() => T) | undefined;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(message);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

interface Options<T> {
  doc: string;
  default?: T | (() => T);
  secret?: boolean;
}

export function variable<T>(
  name: string,
  expects: string,
  parse: (raw: string) => T | undefined,
  options: Options<T>,
): Variable<T> {
  const d = options.default;
  return {
    name,
    expects,
    doc: options.doc,
    secret: options.secret ?? false,
    parse,
    fallback: d === undefined ? undefined : typeof d === 'function' ? (d as () => T) : () => d,
  };
}

export function str(name: string, options: Options<string> & { minLength?: number }): Variable<string> {
  const min = options.minLength ?? 1;
  return variable(
    name,
    min > 1 ? `a string of at least ${min} characters` : 'a non-empty string',
    (raw) => (raw.length >= min ? raw : undefined),
    options,
  );
}

export function optionalStr(
  name: string,
  options: Omit<Options<string>, 'default'> & { minLength?: number },
): Variable<string | undefined> {
  const min = options.minLength ?? 1;
  return variable<string | undefined>(
    name,
    min > 1 ? `a string of at least ${min} characters` : 'a non-empty string',
    (raw) => (raw.length >= min ? raw : undefined),
    { ...options, default: () => undefined },
  );
}

export function int(name: string, options: Options<number> & { min?: number; max?: number }): Variable<number> {
  const min = options.min ?? Number.MIN_SAFE_INTEGER;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const range =
    options.min !== undefined && options.max !== undefined
      ? ` from ${min} to ${max}`
      : options.min !== undefined
        ? ` of at least ${min}`
        : '';
  return variable(
    name,
    `an integer${range}`,
    (raw) => {
      if (!/^-?\d+$/.test(raw.trim())) return undefined;
      const n = Number(raw);
      return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
    },
    options,
  );
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

export function bool(name: string, options: Options<boolean>): Variable<boolean> {
  return variable(
    name,
    'true or false',
    (raw) => {
      const v = raw.trim().toLowerCase();
      return TRUE.has(v) ? true : FALSE.has(v) ? false : undefined;
    },
    options,
  );
}

export function oneOf<const V extends string>(name: string, values: readonly V[], options: Options<V>): Variable<V> {
  return variable(
    name,
    `one of ${values.join(', ')}`,
    (raw) => ((values as readonly string[]).includes(raw) ? (raw as V) : undefined),
    options,
  );
}

function parseUrl(raw: string, protocols: readonly string[]): string | undefined {
  try {
    const u = new URL(raw);
    return protocols.includes(u.protocol) ? raw : undefined;
  } catch {
    return undefined;
  }
}

export function url(name: string, protocols: readonly string[], options: Options<string>): Variable<string> {
  return variable(
    name,
    `a URL (${protocols.map((p) => p.replace(':', '')).join(' or ')})`,
    (raw) => parseUrl(raw, protocols),
    options,
  );
}

export function optionalUrl(
  name: string,
  protocols: readonly string[],
  options: Omit<Options<string>, 'default'>,
): Variable<string | undefined> {
  return variable<string | undefined>(
    name,
    `a URL (${protocols.map((p) => p.replace(':', '')).join(' or ')})`,
    (raw) => parseUrl(raw, protocols),
    { ...options, default: () => undefined },
  );
}

export function list(name: string, options: Options<string[]>): Variable<string[]> {
  return variable(
    name,
    'a comma-separated list',
    (raw) =>
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    options,
  );
}

/** A 256-bit key given as 64 hex characters or 44 base64 characters. */
export function key256(name: string, options: Options<Buffer>): Variable<Buffer> {
  return variable(
    name,
    'a 256-bit key: 64 hex characters or 32 bytes in base64',
    (raw) => {
      const v = raw.trim();
      if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
      const b = Buffer.from(v, 'base64');
      return b.length === 32 && /^[A-Za-z0-9+/_-]{43}=?$/.test(v) ? b : undefined;
    },
    { ...options, secret: true },
  );
}

export type Spec = Record<string, Variable<unknown>>;
export type ConfigOf<S extends Spec> = { readonly [K in keyof S]: S[K] extends Variable<infer T> ? T : never };

export function readConfig<S extends Spec>(spec: S, env: NodeJS.ProcessEnv = process.env): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(spec)) {
    const raw = env[v.name];
    if (raw === undefined || raw === '') {
      if (!v.fallback) throw new ConfigError(v.name, `${v.name} is required: expected ${v.expects}`);
      out[key] = v.fallback();
      continue;
    }
    const value = v.parse(raw);
    if (value === undefined) {
      const shown = v.secret ? '' : ` (got ${JSON.stringify(raw.length > 60 ? raw.slice(0, 60) + '…' : raw)})`;
      throw new ConfigError(v.name, `${v.name} is malformed: expected ${v.expects}${shown}`);
    }
    out[key] = value;
  }
  return out as ConfigOf<S>;
}

/** Loads `.env` from the working directory without overriding variables already set. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
