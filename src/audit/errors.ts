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

/** Fastify's terse media-type error gets a message naming the fix. */
export function classifyAuditError(error: ApiError, raw: unknown): ApiError {
  const validation = (raw as { validation?: AjvError[]; validationContext?: string } | undefined);
  const first = validation?.validation?.[0];
  // Ajv's own words do not say which property was unknown; the caller needs its name to fix the request.
  if (first?.keyword === 'additionalProperties' && first.params?.additionalProperty) {
    const where = `${validation!.validationContext ?? 'body'}${first.instancePath ?? ''}`;
    return { ...error, message: `${where} has an unknown property "${first.params.additionalProperty}"` };
  }
  // Ajv words a value outside a union of literals as one "must be equal to constant" per branch, never
  // saying which values would do; the caller gets the list instead.
  const anyOf = validation?.validation?.find((v) => v.keyword === 'anyOf');
  if (anyOf) {
    const allowed = allowedValues(validation!.validation!, anyOf.instancePath ?? '');
    if (allowed) return { ...error, message: `${validation!.validationContext ?? 'body'}${anyOf.instancePath ?? ''} must be one of ${allowed}` };
  }
  if ((raw as { code?: string } | undefined)?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { ...error, message: 'the body must be sent with Content-Type: application/json' };
  }
  return error;
}
