import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { consoleConfigQuery } from '../../console/config.ts';
import type { ApiProject } from '../admin-api.ts';

/**
 * What a developer pastes into a page to send this project's events with the browser SDK (docs/ingest.md, *Browser
 * SDK*): the module from the ingest service the console talks to, `init` with its address, a key and the project id.
 * The key is the one just made, shown this once; otherwise a placeholder. Text only, with a Copy button.
 */
export function SdkSnippet({ project, apiKey }: { project: ApiProject; apiKey: string | undefined }) {
  const config = useQuery(consoleConfigQuery());
  const url = config.data?.services.find((s) => s.section === 'events')?.url ?? 'https://ingest.example.com';
  const [copied, setCopied] = useState('');
  // JSON.stringify quotes and escapes each value: a project id is plain, but the snippet is code someone pastes.
  const snippet = [
    '<script type="module">',
    `  import { init, track } from ${JSON.stringify(`${url}/sdk/v1.js`)};`,
    `  init({ endpoint: ${JSON.stringify(url)}, apiKey: ${JSON.stringify(apiKey ?? 'YOUR_API_KEY')}, projectId: ${JSON.stringify(project.id)} });`,
    '  track("signed-up", { metadata: { plan: "pro" } });',
    '</script>',
  ].join('\n');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(snippet);
      setCopied('Copied.');
    } catch {
      setCopied('Copying is not available here: select the text and copy it.');
    }
  };
  return (
    <section className="screen-section" aria-labelledby="project-sdk">
      <h2 id="project-sdk">Send events from a web page</h2>
      <p className="hint">
        Paste this into the page. Page views, clicks, forms, errors and network calls are captured from then on;{' '}
        <code>track</code> sends your own events.
        {apiKey ? ' It holds the key just made: keep it out of what others can read before the page is live.' : ''}
        {apiKey ? '' : ' Put one of the project’s keys in place of YOUR_API_KEY (a new one fills it in here).'}
      </p>
      <section className="scroll-box" tabIndex={0} aria-label={`The SDK snippet of ${project.name}`}>
        <pre className="snippet">
          <code>{snippet}</code>
        </pre>
      </section>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => void copy()} aria-label="Copy the SDK snippet">
          Copy
        </button>
        <span role="status">{copied}</span>
      </div>
      <p className="hint">The page’s origin must be allowed: add it to the allowed origins above.</p>
    </section>
  );
}
