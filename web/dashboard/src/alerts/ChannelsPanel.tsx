import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import type {
  ApiAlertRule,
  ApiChannel,
  ApiChannelTest,
  ApiCreateChannel,
  ApiCreatedChannel,
  ApiUser,
} from '../api/types.ts';
import { atLeast } from '../app/roles.ts';
import { SecretOnce } from '../app/SecretOnce.tsx';
import { WideTable } from '../app/WideTable.tsx';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { alertRulesQuery, channelsQuery } from './queries.ts';
import { useConfirm } from '../app/useConfirm.tsx';

const KIND_TEXT = { email: 'Email', webhook: 'Webhook (signed)', slack: 'Slack-compatible webhook' } as const;

/**
 * What deleting a channel takes with it, as the dialog says it: the rules that notify it by name (they stop), those
 * left notifying no one, and its record of notifications sent. `rules` undefined: not read (yet), said in general.
 */
export function whatGoesWith(c: ApiChannel, rules: ApiAlertRule[] | undefined): string {
  const gone = 'Its record of notifications sent goes with it.';
  if (!rules) return `The alert rules notifying it stop. ${gone}`;
  const notifying = rules.filter((r) => r.channelIds.includes(c.id));
  if (notifying.length === 0) return `No alert rule notifies it. ${gone}`;
  const names = (list: ApiAlertRule[]) => list.map((r) => r.name).join(', ');
  const alone = notifying.filter((r) => r.channelIds.length === 1);
  const one = notifying.length === 1;
  return [
    `${notifying.length} alert rule${one ? ' notifies' : 's notify'} it: ${names(notifying)}.`,
    `${one ? 'It stops' : 'They stop'} notifying it;`,
    alone.length === 0
      ? 'each still notifies its other channels.'
      : `${names(alone)} ${alone.length === 1 ? 'notifies no other channel: it' : 'notify no other channel: they'} will notify no one.`,
    gone,
  ].join(' ');
}

/** Where notifications go: admins add and delete channels; editors send a test to one. */
export function ChannelsPanel({ me }: { me: ApiUser }) {
  const client = useQueryClient();
  const channels = useQuery(channelsQuery());
  const [adding, setAdding] = useState(false);
  const [message, setMessage] = useState('');
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const action = useMutation({
    mutationFn: (what: () => Promise<string>) => what(),
    onMutate: () => setMessage(''),
    onSuccess: (said) => setMessage(said),
  });
  const test = (c: ApiChannel) =>
    action.mutate(async () => {
      const r = (await api<ApiChannelTest>('POST', `/alert-channels/${c.id}/test`)).data;
      return r.ok ? `Test sent to ${c.name}: ${r.detail}.` : `Test to ${c.name} failed: ${r.detail}.`;
    });
  // The rules shown above it on the same screen (one read): which of them notify a channel about to be deleted.
  const rules = useQuery(alertRulesQuery());
  const heading = useRef<HTMLHeadingElement>(null);
  const [confirmFirst, confirming] = useConfirm();
  const remove = async (c: ApiChannel) => {
    const yes = await confirmFirst({
      title: `Delete the channel ${c.name}?`,
      body: whatGoesWith(c, rules.data),
      confirm: 'Delete channel',
    });
    if (!yes) return;
    action.mutate(
      async () => {
        await api('DELETE', `/alert-channels/${c.id}`);
        await client.invalidateQueries({ queryKey: keys.alerts.all });
        return `${c.name} deleted.`;
      },
      // Its Delete goes with its row: the focus goes to the list's heading rather than to the page's top.
      { onSuccess: () => heading.current?.focus() },
    );
  };
  const admin = atLeast(me, 'admin');
  return (
    <section aria-labelledby="channels-h">
      <h2 id="channels-h" ref={heading} tabIndex={-1}>
        Notification channels
      </h2>
      <p role="status" className="status">
        {message}
      </p>
      {(action.error || channels.error) && (
        <p role="alert" className="error">
          {messageOf(action.error ?? channels.error)}
        </p>
      )}
      {secret && (
        <SecretOnce
          title={`Signing secret of ${secret.name}`}
          label={`the signing secret of ${secret.name}`}
          value={secret.value}
          note="Give it to the receiver to verify each notification's webhook-signature. It is shown this once."
        />
      )}
      {admin && !adding && (
        <button type="button" onClick={() => setAdding(true)}>
          Add channel
        </button>
      )}
      {adding && (
        <ChannelForm
          onCancel={() => setAdding(false)}
          onSaved={(created) => {
            setAdding(false);
            setMessage(`Channel ${created.name} added.`);
            if (created.secret) setSecret({ name: created.name, value: created.secret });
          }}
        />
      )}
      {channels.data && channels.data.length === 0 && <p>No channels yet.{admin ? '' : ' Ask an admin to add one.'}</p>}
      {channels.data && channels.data.length > 0 && (
        <WideTable label="Notification channels">
          <table>
            <caption className="visually-hidden">Notification channels</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Sends to</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {channels.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th>
                  <td>{KIND_TEXT[c.kind]}</td>
                  <td>{c.kind === 'email' ? c.addresses.join(', ') : c.target}</td>
                  <td className="actions">
                    {atLeast(me, 'editor') && (
                      <button type="button" onClick={() => test(c)} aria-label={`Send test to ${c.name}`}>
                        Send test
                      </button>
                    )}
                    {admin && (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => remove(c)}
                        aria-label={`Delete ${c.name}`}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {confirming}
    </section>
  );
}

function ChannelForm({ onSaved, onCancel }: { onSaved: (c: ApiCreatedChannel) => void; onCancel: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ApiChannel['kind']>('email');
  const [addresses, setAddresses] = useState('');
  const [url, setUrl] = useState('');
  const save = useMutation({
    mutationFn: async () => {
      const body: ApiCreateChannel =
        kind === 'email'
          ? {
              name,
              kind,
              addresses: addresses
                .split(/[\s,;]+/)
                .map((a) => a.trim())
                .filter(Boolean),
            }
          : { name, kind, url: url.trim() };
      return (await api<ApiCreatedChannel>('POST', '/alert-channels', { body })).data;
    },
    onSuccess: async (created) => {
      await client.invalidateQueries({ queryKey: keys.alerts.channels });
      onSaved(created);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="form alert-form" onSubmit={submit} aria-labelledby="channel-form-h">
      <h3 id="channel-form-h">Add a channel</h3>
      <label htmlFor="ch-name">Name</label>
      <input id="ch-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="ch-kind">Kind</label>
      <select id="ch-kind" value={kind} onChange={(e) => setKind(e.target.value as ApiChannel['kind'])}>
        <option value="email">Email</option>
        <option value="webhook">Webhook, signed (Standard Webhooks)</option>
        <option value="slack">Slack-compatible incoming webhook</option>
      </select>
      {kind === 'email' ? (
        <>
          <label htmlFor="ch-addresses">Addresses</label>
          <input
            id="ch-addresses"
            required
            aria-describedby="ch-addresses-hint"
            value={addresses}
            onChange={(e) => setAddresses(e.target.value)}
          />
          <p id="ch-addresses-hint" className="hint">
            One or more, separated by commas.
          </p>
        </>
      ) : (
        <>
          <label htmlFor="ch-url">URL</label>
          <input
            id="ch-url"
            type="url"
            required
            autoComplete="off"
            aria-describedby="ch-url-hint"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
          <p id="ch-url-hint" className="hint">
            {kind === 'slack'
              ? 'The incoming webhook URL (https://hooks.slack.com/services/…). Stored encrypted, never shown again.'
              : 'Each notification is signed; the secret is shown once after you add the channel.'}
          </p>
        </>
      )}
      {save.error && (
        <p role="alert" className="error">
          {messageOf(save.error)}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          Add channel
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
