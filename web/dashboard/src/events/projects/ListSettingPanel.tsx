import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { messageOf } from '../../data/errors.ts';
import { ingestApi, ingestKeys, seg, type ApiProject } from '../admin-api.ts';
import { FieldError, fieldErrors } from '../field-errors.tsx';

const UNREACHABLE = 'the ingest service could not be reached';

/** One of a project's list settings (its allowed origins, its internal users): where it is and how it is worded. */
export interface ListSetting<F extends string, T extends Record<F, string[]>> {
  /** Under `/projects/{id}/`, for reading (GET) and replacing (PUT) the list. */
  path: string;
  /** The field of the answer and of the body holding the list; the service names a refused entry `field[n]`. */
  field: F;
  /** Element ids: `{one}-{n}` a field, `{one}-add`; `{many}-edit`, `{many}-help`, `project-{many}` the heading. */
  ids: { one: string; many: string };
  heading: string;
  help: ReactNode;
  words: {
    /** The label of the n-th field (from 1), also in its Remove button's name. */
    entry: string;
    empty: string;
    saved: (count: number) => string;
    edit: string;
    add: string;
    save: string;
  };
  input: { inputMode?: 'url'; maxLength: number; placeholder: string };
  maxEntries?: number;
  /** Said after an entry in the list, when it needs a word (a prefix's meaning). */
  entryNote?: (entry: string) => ReactNode;
  /** Said under the list, from the whole answer (the service-wide origins). */
  below?: (answer: T) => ReactNode;
  /** After a save: what else must be read again. */
  saved?: (projectId: string) => void;
}

/**
 * A project's list setting, shown as text and edited one field per entry; blank fields are left out, the service
 * checks each entry and a refusal is said next to its field (the service names entries by the index sent). The focus
 * goes to the field added or opened, the next one after a removal, and back to Edit after a save or Cancel.
 */
export function ListSettingPanel<F extends string, T extends Record<F, string[]>>({
  project,
  setting: s,
}: {
  project: ApiProject;
  setting: ListSetting<F, T>;
}) {
  const client = useQueryClient();
  const key = [...ingestKeys.project(project.id), s.path];
  const url = `/projects/${seg(project.id)}/${s.path}`;
  const list = useQuery({ queryKey: key, queryFn: ({ signal }) => ingestApi.get<T>(url, signal) });
  const [draft, setDraft] = useState<string[]>();
  const [said, setSaid] = useState('');
  const [focusAt, setFocusAt] = useState<string>();
  useEffect(() => {
    if (!focusAt) return;
    document.getElementById(focusAt)?.focus();
    setFocusAt(undefined);
  }, [focusAt]);
  const { one, many } = s.ids;
  const sent = (draft ?? []).map((value, i) => ({ value: value.trim(), i })).filter((x) => x.value !== '');
  const save = useMutation({
    mutationFn: () => ingestApi.call<T>('PUT', url, { body: { [s.field]: sent.map((x) => x.value) } }),
    onSuccess: (answer) => {
      client.setQueryData(key, answer);
      s.saved?.(project.id);
      setDraft(undefined);
      setFocusAt(`${many}-edit`);
      setSaid(s.words.saved(answer[s.field].length));
    },
  });
  const raw = fieldErrors(save.error, [s.field, ...sent.map((_, n) => `${s.field}[${n}]`)], UNREACHABLE) as Record<
    string,
    string | undefined
  >;
  const errorAt = (i: number) => {
    const n = sent.findIndex((x) => x.i === i);
    return n < 0 ? undefined : raw[`${s.field}[${n}]`];
  };
  const problem = raw.other ?? raw[s.field];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const answer = list.data;
  const entries = answer?.[s.field];
  return (
    <section className="screen-section" aria-labelledby={`project-${many}`}>
      <h2 id={`project-${many}`}>{s.heading}</h2>
      <p className="hint" id={`${many}-help`}>
        {s.help}
      </p>
      {list.error !== null && (
        <p role="alert" className="error">
          {messageOf(list.error, UNREACHABLE)}
        </p>
      )}
      <p role="status" className="status">
        {said}
      </p>
      {answer && entries && !draft && (
        <>
          {entries.length === 0 ? (
            <p>{s.words.empty}</p>
          ) : (
            <ul className="origins">
              {entries.map((x) => (
                <li key={x}>
                  <code>{x}</code>
                  {s.entryNote?.(x)}
                </li>
              ))}
            </ul>
          )}
          {s.below?.(answer)}
          <div className="actions">
            <button
              type="button"
              id={`${many}-edit`}
              className="secondary"
              onClick={() => {
                save.reset();
                setSaid('');
                setDraft(entries.length ? [...entries] : ['']);
                setFocusAt(`${one}-0`);
              }}
            >
              {s.words.edit}
            </button>
          </div>
        </>
      )}
      {draft && (
        <form className="form inline-form" onSubmit={submit} aria-label={s.heading}>
          {draft.map((value, i) => {
            const id = `${one}-${i}`;
            const error = errorAt(i);
            return (
              <div key={i} className="origin-row">
                <label htmlFor={id}>
                  {s.words.entry} {i + 1}
                </label>
                <div className="origin-field">
                  <input
                    id={id}
                    inputMode={s.input.inputMode}
                    maxLength={s.input.maxLength}
                    autoComplete="off"
                    spellCheck={false}
                    placeholder={s.input.placeholder}
                    value={value}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `${id}-error ${many}-help` : `${many}-help`}
                    onChange={(e) => setDraft(draft.map((d, j) => (j === i ? e.target.value : d)))}
                  />
                  <button
                    type="button"
                    className="secondary small"
                    aria-label={`Remove ${s.words.entry.toLowerCase()} ${i + 1}`}
                    onClick={() => {
                      setDraft(draft.filter((_, j) => j !== i));
                      setFocusAt(draft.length > 1 ? `${one}-${Math.min(i, draft.length - 2)}` : `${one}-add`);
                    }}
                  >
                    Remove
                  </button>
                </div>
                <FieldError id={`${id}-error`} message={error} />
              </div>
            );
          })}
          {problem && (
            <p role="alert" className="error">
              {problem}
            </p>
          )}
          <div className="actions">
            <button
              type="button"
              id={`${one}-add`}
              className="secondary"
              disabled={s.maxEntries !== undefined && draft.length >= s.maxEntries}
              onClick={() => {
                setDraft([...draft, '']);
                setFocusAt(`${one}-${draft.length}`);
              }}
            >
              {s.words.add}
            </button>
          </div>
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              {s.words.save}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setDraft(undefined);
                save.reset();
                setFocusAt(`${many}-edit`);
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
