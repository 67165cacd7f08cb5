import { useState } from 'react';

/**
 * A value the service shows once and keeps nowhere readable (an invitation's link, a client secret): as selectable text,
 * not a link (the admin passes it on; opening it here would use it as the admin), with a Copy button. It lives only in
 * the screen's state: gone with the next action or a reload.
 */
export function OneTimeValue({ label, value, note }: { label: string; value: string; note: string }) {
  const [copied, setCopied] = useState('');
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
    <div className="setup-link one-time">
      <p>
        {label}: <code className="link-text">{value}</code>
      </p>
      <p className="hint">{note}</p>
      <div className="actions">
        <button type="button" className="secondary" onClick={copy} aria-label={`Copy: ${label}`}>
          Copy
        </button>
        <span role="status">{copied}</span>
      </div>
    </div>
  );
}
