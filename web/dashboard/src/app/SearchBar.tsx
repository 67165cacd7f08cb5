import { useState, type FormEvent } from 'react';

/**
 * A list's search: a labelled search field with its hint and a Search button in a `search` landmark. The list asks
 * again only when the form is sent (not per keystroke), with the trimmed text, or undefined for an empty field.
 */
export function SearchBar({
  id,
  landmark,
  label,
  hint,
  onSearch,
}: {
  /** The field's id; its hint's is this with `-hint`. */
  id: string;
  /** The landmark's name: the list's. */
  landmark: string;
  label: string;
  hint: string;
  onSearch: (text: string | undefined) => void;
}) {
  const [typed, setTyped] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch(typed.trim() || undefined);
  };
  return (
    <search aria-label={landmark}>
      <form className="search" onSubmit={submit}>
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          type="search"
          value={typed}
          maxLength={200}
          aria-describedby={`${id}-hint`}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit">Search</button>
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      </form>
    </search>
  );
}
