import { useEffect, useId, useRef, useState } from 'react';
import './secret-once.css';

/**
 * A secret the service answered this once (a client secret, a password link): shown as selectable text with a Copy
 * button, never as a link, and kept only in this component, so it is gone once the person moves on or reloads. The
 * focus moves to its heading when it appears, so a screen reader announces it.
 */
export function SecretOnce({
  title,
  label,
  value,
  note,
}: {
  title: string;
  /** What the Copy button copies, for its accessible name ("the client secret of Shop"). */
  label: string;
  value: string;
  note: string;
}) {
  const [copied, setCopied] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const id = useId();
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied.');
    } catch {
      // No clipboard (an insecure origin, a refused permission): the text stays selectable.
      setCopied('Copying is not available here: select the text and copy it.');
    }
  };
  return (
    <section className="secret-once" aria-labelledby={id}>
      <h2 id={id} ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p>{note}</p>
      <code className="secret-value">{value}</code>
      <div className="actions">
        <button type="button" onClick={() => void copy()} aria-label={`Copy ${label}`}>
          Copy
        </button>
        <span role="status">{copied}</span>
      </div>
    </section>
  );
}
