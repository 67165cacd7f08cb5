import type { ApiError } from '../kit/errors.ts';

// Document 3 names no error shape for the audit service; it answers the platform's `{error:{code,message}}`.

interface AjvError {
  keyword?: string;
  instancePath?: string;
  params?: { additionalProperty?: string; allowedValue?: unknown; allowedValues?: unknown[] };
}

/**
 * The values a union of literals (`level`, `version`, `format`, `status`, `provider`) allows, from Ajv's
 * errors of its branches; null when the failing `anyOf` is not one of literals. Strings that differ only in
 * case are one value (`"A"` and `"a"`), said once with "any case".
 */
function allowedValues(errors: AjvError[], path: string): string | null {
  const values: unknown[] = [];
  for (const err of errors) {
    if (err.instancePath !== path) continue;
    if (err.keyword === 'const') values.push(err.params?.allowedValue);
    else if (err.keyword === 'enum') values.push(...(err.params?.allowedValues ?? []));
  }
  if (values.length === 0) return null;
  const seen = new Set<string>();
  const shown: string[] = [];
  let anyCase = false;
  for (const value of values) {
    const key = typeof value === 'string' ? `s:${value.toLowerCase()}` : `j:${JSON.stringify(value)}`;
    if (seen.has(key)) {
      anyCase ||= typeof value === 'string';
      continue;
    }
    seen.add(key);
    shown.push(JSON.stringify(value));
  }
  return `${shown.join(', ')}${anyCase ? ' (any case)' : ''}`;
}

/** The options each object of the request bodies takes, by where the object is (its Ajv instance path). */
const OPTIONS = ['level', 'version', 'crawl', 'llm', 'session', 'ignore'];
const KNOWN: Record<string, string[]> = {
  '': ['url', 'config', ...OPTIONS],
  '/config': OPTIONS,
  '/crawl': ['enabled', 'depth', 'maxPages'],
  '/config/crawl': ['enabled', 'depth', 'maxPages'],
  '/llm': ['enabled', 'provider', 'model'],
  '/config/llm': ['enabled', 'provider', 'model'],
  '/session': ['steps', 'cookies', 'headers', 'signOut'],
  '/config/session': ['steps', 'cookies', 'headers', 'signOut'],
};
/** Names clients send because the result (`wcagLevel`) or another tool (pa11y's `standard`) uses them for the same option; keyed squashed. */
const ALIASES: Record<string, string> = {
  wcaglevel: 'level',
  wcagversion: 'version',
  standard: 'level',
  maxdepth: 'depth',
  pages: 'maxPages',
  // pa11y's and Lighthouse CI's words for what runs before the audit.
  auth: 'session',
  login: 'session',
  signin: 'session',
  actions: 'steps',
  signout: 'signOut',
};

/** `max_pages`, `Max-Pages` and `maxpages` are all `maxPages`. */
const squash = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

/**
 * What the caller probably meant by an unknown property: the result's `wcagLevel` for the request's `level`,
 * `max_pages` for `maxPages`, an option sent at the top level of a job (it belongs in `config`), or a job's
 * `config` sent to `POST /audit` (whose options are at the top level). Empty when nothing fits. The two POST
 * routes share this, and only their top levels differ, so a hint there names both places.
 */
function hintFor(path: string, property: string): string {
  const known = KNOWN[path];
  if (!known) return '';
  if (path === '' && property === 'config')
    return '; POST /audit takes level, version, crawl, llm, session and ignore at the top level (config is the wrapper of POST /api/v1/audits)';
  if (path === '' && OPTIONS.includes(property))
    return `; a job's options go inside "config": {"url": …, "config": {"${property}": …}}`;
  const alias = ALIASES[squash(property)];
  const meant = alias && known.includes(alias) ? alias : known.find((k) => squash(k) === squash(property));
  if (!meant) return '';
  if (path === '' && OPTIONS.includes(meant))
    return `; did you mean "${meant}" (POST /audit) or "config.${meant}" (POST /api/v1/audits)?`;
  return `; did you mean "${meant}"?`;
}

/** Fastify's terse media-type error gets a message naming the fix. */
export function classifyAuditError(error: ApiError, raw: unknown): ApiError {
  const validation = raw as { validation?: AjvError[]; validationContext?: string } | undefined;
  const first = validation?.validation?.[0];
  // Ajv's own words do not say which property was unknown; the caller needs its name to fix the request.
  if (first?.keyword === 'additionalProperties' && first.params?.additionalProperty) {
    const where = `${validation!.validationContext ?? 'body'}${first.instancePath ?? ''}`;
    const property = first.params.additionalProperty;
    return {
      ...error,
      message: `${where} has an unknown property "${property}"${where.startsWith('body') ? hintFor(first.instancePath ?? '', property) : ''}`,
    };
  }
  // Ajv words a value outside a union of literals as one "must be equal to constant" per branch, never
  // saying which values would do; the caller gets the list instead.
  const anyOf = validation?.validation?.find((v) => v.keyword === 'anyOf');
  if (anyOf) {
    const allowed = allowedValues(validation!.validation!, anyOf.instancePath ?? '');
    if (allowed)
      return {
        ...error,
        message: `${validation!.validationContext ?? 'body'}${anyOf.instancePath ?? ''} must be one of ${allowed}`,
      };
  }
  if ((raw as { code?: string } | undefined)?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { ...error, message: 'the body must be sent with Content-Type: application/json' };
  }
  return error;
}
