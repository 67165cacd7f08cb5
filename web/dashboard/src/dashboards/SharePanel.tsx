import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client.ts';
import type { ApiShare, ApiUser } from '../api/types.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { shareQuery } from '../data/queries.ts';
import { useFocusOnOpen } from './useFocusOnOpen.ts';
import { useConfirm } from '../app/useConfirm.tsx';
import { AccessSection } from './AccessSection.tsx';

/**
 * The dashboard's public link (editors): turn it on, copy it, turn it off. The link is shown as selectable text with
 * a Copy button, not as a link: opening it here would only show what the editor already sees.
 */
export function SharePanel({ me, id, title }: { me: ApiUser; id: number; title: string }) {
  const client = useQueryClient();
  const current = useQuery(shareQuery(id));
  const share = current.data;
  const [said, setSaid] = useState('');
  const heading = useFocusOnOpen('share');

  // Turning the link on or off answers what the link now is: that is the cached share.
  const change = useMutation({
    mutationFn: async (on: boolean): Promise<ApiShare> => {
      if (on) return (await api<ApiShare>('PUT', `/dashboards/${id}/share`)).data;
      await api('DELETE', `/dashboards/${id}/share`);
      return { shared: false };
    },
    onSuccess: (now) => {
      client.setQueryData(keys.dashboards.share(id), now);
      setSaid(now.shared ? 'The public link is on: anyone with it sees this dashboard.' : 'The public link is off.');
    },
  });
  const busy = change.isPending;
  const failed = change.error ?? current.error;
  const turnOn = () => change.mutate(true);
  const [confirmFirst, confirming] = useConfirm();
  const turnOff = async () => {
    const yes = await confirmFirst({
      title: `Turn off the public link to “${title}”?`,
      body: 'It stops working at once for everyone who has it.',
      confirm: 'Turn off the link',
    });
    if (yes) change.mutate(false);
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(share?.url ?? '');
      setSaid('Link copied.');
    } catch {
      setSaid('Copying is not available here: select the link and copy it.');
    }
  };

  return (
    <section className="panel" aria-labelledby="share-h">
      <h2 id="share-h" ref={heading} tabIndex={-1}>
        Public link
      </h2>
      <p className="hint">
        Anyone with the link sees this dashboard's charts and tables without signing in, and can change its parameters.
        They never see its SQL or data sources.
      </p>
      <div role="alert" className="error">
        {failed ? messageOf(failed) : ''}
      </div>
      {share && !share.shared && (
        <p>
          <button type="button" disabled={busy} onClick={turnOn}>
            Create public link
          </button>
        </p>
      )}
      {share?.shared && (
        <div className="setup-link">
          <p>
            Public link: <code className="link-text">{share.url}</code>
          </p>
          <div className="actions">
            <button type="button" className="secondary" onClick={() => void copy()}>
              Copy link
            </button>
            <button type="button" className="danger" disabled={busy} onClick={turnOff}>
              Turn off the link
            </button>
          </div>
        </div>
      )}
      <p role="status" className="status">
        {said}
      </p>
      {confirming}
      <AccessSection me={me} id={id} />
    </section>
  );
}
