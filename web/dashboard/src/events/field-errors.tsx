import { ApiError } from '../api/client.ts';

/**
 * The ingest API names the field a refusal is about at the start of its message (`base_url: must be …`,
 * `credentials.api_key: required …`, `origins[2]: must be …`, `name: must not be blank`, or the schema's `body/id must match …`): the message goes next to that field, the rest of it
 * (and any other failure) under the form. `fields` maps the names a form has; a 409 about a taken id goes to `id`.
 */
export function fieldErrors<F extends string>(
  err: unknown,
  fields: readonly F[],
  unreachable: string,
): Partial<Record<F | 'other', string>> {
  if (!err) return {};
  if (!(err instanceof ApiError)) return { other: unreachable } as Partial<Record<F | 'other', string>>;
  // The service's own checks say `field: …`; the schema's say `body/field …` (src/kit/app.ts).
  const named = /^([A-Za-z_][\w.[\]]*): (.+)$/s.exec(err.message) ?? /^body\/([\w/]+) (.+)$/s.exec(err.message);
  const field = named?.[1]?.replaceAll('/', '.') as F | undefined;
  if (named && field && fields.includes(field)) return { [field]: named[2] } as Partial<Record<F | 'other', string>>;
  if (err.status === 409 && (fields as readonly string[]).includes('id'))
    return { id: err.message } as Partial<Record<F | 'other', string>>;
  return { other: err.message } as Partial<Record<F | 'other', string>>;
}

/** A field's error, next to it and said at once: the field points at it with aria-describedby and aria-invalid. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="error field-error">
      {message}
    </p>
  );
}
