import { useEffect, useState } from 'react';

/** A text widget: its Markdown rendered safely (marked, then DOMPurify), both loaded when the first text widget shows. */
export function TextWidget({ markdown }: { markdown: string }) {
  const [html, setHtml] = useState<string>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let gone = false;
    import('./markdown.ts').then(
      ({ renderMarkdown }) => {
        if (!gone) setHtml(renderMarkdown(markdown));
      },
      () => setFailed(true),
    );
    return () => {
      gone = true;
    };
  }, [markdown]);
  if (failed)
    return (
      <p role="alert" className="error">
        The text could not be shown.
      </p>
    );
  if (html === undefined) return <p className="hint">Loading…</p>;
  // biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML is renderMarkdown's, sanitised by DOMPurify (no scripts, event handlers, javascript: links or styles); Markdown becomes markup only this way
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
