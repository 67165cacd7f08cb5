/** A field's error, beside it; the field points at it with aria-describedby (invalidProps). */
export function FieldError({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p id={`${id}-error`} className="field-error">
      {error}
    </p>
  );
}
