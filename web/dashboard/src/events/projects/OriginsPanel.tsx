import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { messageOf } from '../../data/errors.ts';
import { ingestApi, ingestKeys, seg, type ApiProject, type ApiProjectOrigins } from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';

const UNREACHABLE = 'the ingest service could not be reached';

/**
 * The browser origins allowed to send the project's events (its own, beside the service-wide INGEST_ALLOWED_ORIGINS):
 * shown as text, edited one field per origin; the service checks each and a refusal is said next to its field.
 */
export function OriginsPanel({ project }: { project: ApiProject }) {
  const client = useQueryClient();
  const key = [...ingestKeys.project(project.id), 'origins'];
  const origins = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => ingestApi.get<ApiProjectOrigins>(`/projects/${seg(project.id)}/origins`, signal),
  });
  const [draft, setDraft] = useState<string[]>();
  const [said, setSaid] = useState('');
  // Where the focus goes once the fields are drawn: the field added or opened, the next one after a removal.
  const [focusAt, setFocusAt] = useState<string>();
  useEffect(() => {
    if (!focusAt) return;
    document.getElementById(focusAt)?.focus();
    setFocusAt(undefined);
  }, [focusAt]);
  // The fields sent, by their place in the draft: blank ones are left out, and the service names entries by the index sent.
  const sent = (draft ?? []).map((o, i) => ({ o: o.trim(), i })).filter((x) => x.o !== '');
  const save = useMutation({
    mutationFn: () =>
      ingestApi.call<ApiProjectOrigins>('PUT', `/projects/${seg(project.id)}/origins`, {
        body: { origins: sent.map((x) => x.o) },
      }),
    onSuccess: (o) => {
      client.setQueryData(key, o);
      setDraft(undefined);
      setFocusAt('origins-edit');
      setSaid(
        o.origins.length === 0
          ? 'The project allows no origin of its own.'
          : `The project allows ${o.origins.length} origin${o.origins.length === 1 ? '' : 's'}.`,
      );
    },
  });
  const raw = fieldErrors(
    save.error,
    sent.map((_, n) => `origins[${n}]`),
    UNREACHABLE,
  ) as Record<string, string | undefined>;
  const errorAt = (i: number) => {
    const n = sent.findIndex((x) => x.i === i);
    return n < 0 ? undefined : raw[`origins[${n}]`];
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const o = origins.data;
  return (
    <section className="screen-section" aria-labelledby="project-origins">
      <h2 id="project-origins">Allowed origins</h2>
      <p className="hint">
        The web sites whose pages may send this project’s events from the browser, as <code>https://host</code> (with a
        port when not the usual one).
      </p>
      {origins.error !== null && (
        <p role="alert" className="error">
          {messageOf(origins.error, UNREACHABLE)}
        </p>
      )}
      <p role="status" className="status">
        {said}
      </p>
      {o && !draft && (
        <>
          {o.origins.length === 0 ? (
            <p>No origin of its own.</p>
          ) : (
            <ul className="origins">
              {o.origins.map((x) => (
                <li key={x}>
                  <code>{x}</code>
                </li>
              ))}
            </ul>
          )}
          <p className="hint">
            {o.service_origins.length === 0
              ? 'The service allows no origin for every project (INGEST_ALLOWED_ORIGINS is empty).'
              : o.service_origins.includes('*')
                ? 'The service allows every origin for every project (INGEST_ALLOWED_ORIGINS=*).'
                : `Allowed for every project by the service (INGEST_ALLOWED_ORIGINS): ${o.service_origins.join(', ')}.`}
          </p>
          <div className="actions">
            <button
              type="button"
              id="origins-edit"
              className="secondary"
              onClick={() => {
                save.reset();
                setSaid('');
                setDraft(o.origins.length ? [...o.origins] : ['']);
                setFocusAt('origin-0');
              }}
            >
              Edit allowed origins
            </button>
          </div>
        </>
      )}
      {draft && (
        <form className="form inline-form" onSubmit={submit} aria-label="Allowed origins">
          {draft.map((value, i) => {
            const id = `origin-${i}`;
            const error = errorAt(i);
            return (
              <div key={i} className="origin-row">
                <label htmlFor={id}>Origin {i + 1}</label>
                <div className="origin-field">
                  <input
                    id={id}
                    inputMode="url"
                    maxLength={2000}
                    autoComplete="off"
                    spellCheck={false}
                    placeholder="https://shop.example.com"
                    value={value}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `${id}-error` : undefined}
                    onChange={(e) => setDraft(draft.map((d, j) => (j === i ? e.target.value : d)))}
                  />
                  <button
                    type="button"
                    className="secondary small"
                    aria-label={`Remove origin ${i + 1}`}
                    onClick={() => {
                      setDraft(draft.filter((_, j) => j !== i));
                      setFocusAt(draft.length > 1 ? `origin-${Math.min(i, draft.length - 2)}` : 'origin-add');
                    }}
                  >
                    Remove
                  </button>
                </div>
                <FieldError id={`${id}-error`} message={error} />
              </div>
            );
          })}
          {raw.other && (
            <p role="alert" className="error">
              {raw.other}
            </p>
          )}
          <div className="actions">
            <button
              type="button"
              id="origin-add"
              className="secondary"
              onClick={() => {
                setDraft([...draft, '']);
                setFocusAt(`origin-${draft.length}`);
              }}
            >
              Add an origin
            </button>
          </div>
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              Save allowed origins
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setDraft(undefined);
                save.reset();
                setFocusAt('origins-edit');
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
