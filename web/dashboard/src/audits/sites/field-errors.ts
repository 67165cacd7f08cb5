import { ApiError } from '../../api/client.ts';

/**
 * Which field a refusal of the service is about, read from its message (the audit service names the field first:
 * `url must use http or https`, `crawl.maxPages must be at most 100`, `body/name must …`); `form` when none.
 */
export function fieldOf<F extends string>(
  err: unknown,
  fields: Record<F, RegExp>,
): { field: F | 'form'; message: string } {
  const message = err instanceof ApiError ? err.message : 'the audit service could not be reached';
  if (err instanceof ApiError && err.status === 400) {
    for (const [field, pattern] of Object.entries(fields) as [F, RegExp][])
      if (pattern.test(message)) return { field, message };
  }
  return { field: 'form', message };
}

/** The props that tie a field to its error: invalid when there is one, described by it. */
export const invalidProps = (id: string, error: string | undefined, hint?: string) => ({
  'aria-invalid': error ? (true as const) : undefined,
  'aria-describedby': [hint, error ? `${id}-error` : undefined].filter(Boolean).join(' ') || undefined,
});
