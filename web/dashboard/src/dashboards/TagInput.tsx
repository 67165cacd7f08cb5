import { useState, type KeyboardEvent } from 'react';

export const MAX_TAGS = 10;
export const MAX_TAG_LENGTH = 40;

/** Why `tag` cannot be added to `tags` (the service's rules: trimmed, 1 to 40 characters, at most 10, unique ignoring case), or ''. */
export function tagProblem(tags: readonly string[], tag: string): string {
  const t = tag.trim();
  if (!t) return 'A tag needs at least one character.';
  if (t.length > MAX_TAG_LENGTH) return `A tag is at most ${MAX_TAG_LENGTH} characters.`;
  if (tags.some((x) => x.toLowerCase() === t.toLowerCase())) return `"${t}" is already a tag.`;
  if (tags.length >= MAX_TAGS) return `At most ${MAX_TAGS} tags.`;
  return '';
}

/** A dashboard's tags as chips, each with its remove button, and a field that adds one (Enter or the Add button). */
export function TagInput({ tags, onTags }: { tags: readonly string[]; onTags: (t: string[]) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState('');
  const add = () => {
    const why = tagProblem(tags, text);
    setProblem(why);
    if (why) return;
    onTags([...tags, text.trim()]);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    add();
  };
  return (
    <fieldset className="tags-field">
      <legend>Tags</legend>
      {tags.length > 0 ? (
        <ul className="chips" aria-label="Tags of this dashboard">
          {tags.map((t) => (
            <li key={t.toLowerCase()} className="chip">
              <span>{t}</span>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove tag ${t}`}
                onClick={() => onTags(tags.filter((x) => x !== t))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint">No tags yet.</p>
      )}
      <div className="toolbar">
        <div className="field">
          <label htmlFor="set-tag">New tag</label>
          <input
            id="set-tag"
            maxLength={MAX_TAG_LENGTH}
            value={text}
            aria-describedby="set-tag-hint set-tag-problem"
            aria-invalid={problem ? true : undefined}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={onKey}
          />
        </div>
        <button type="button" className="secondary" onClick={add}>
          Add tag
        </button>
      </div>
      <p id="set-tag-hint" className="hint">
        Up to {MAX_TAGS} tags of {MAX_TAG_LENGTH} characters; the list filters by them.
      </p>
      <p id="set-tag-problem" role="alert" className="error">
        {problem}
      </p>
    </fieldset>
  );
}
