import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, get } from '../api/client.ts';
import type { ApiDashboard, ApiSubscription, ApiSubscriptionSend, ApiUser } from '../api/types.ts';
import { Link } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { WideTable } from '../app/WideTable.tsx';
import { dashboardQuery } from '../dashboards/api.ts';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { SubscriptionForm, scheduleText } from './SubscriptionForm.tsx';
import './subscriptions.css';
import { formatDateTime } from '../app/datetime.ts';
import { useConfirm } from '../app/useConfirm.tsx';

const subscriptionsQuery = (id: number) => ({
  queryKey: keys.subscriptions.ofDashboard(id),
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    (await get<{ items: ApiSubscription[] }>(`/dashboards/${id}/subscriptions`, signal)).items,
});

/** Who a subscription is mailed to, as the list says it: you first, then how many other users, then the addresses. */
function recipientsOf(s: ApiSubscription, me: ApiUser): string[] {
  const others = s.recipients.userIds.filter((u) => u !== me.id).length;
  return [
    ...(s.recipients.userIds.includes(me.id) ? ['you'] : []),
    ...(others ? [`${others} other user(s)`] : []),
    ...s.recipients.addresses,
  ];
}
const andList = (items: string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** A dashboard's email subscriptions: when each is sent, to whom, with which parameters; send one now. */
export default function SubscriptionsScreen({ me, id }: { me: ApiUser; id: number }) {
  const dashboard = useQuery(dashboardQuery(id));
  const title = dashboard.data?.dashboard.title;
  useScreen(title ? `Subscriptions of ${title}` : 'Subscriptions');
  const list = useQuery(subscriptionsQuery(id));
  const client = useQueryClient();
  const [panel, setPanel] = useState<{ kind: 'none' } | { kind: 'form'; editing?: ApiSubscription }>({ kind: 'none' });
  const [message, setMessage] = useState('');
  const action = useMutation({
    mutationFn: (what: () => Promise<string>) => what(),
    onMutate: () => setMessage(''),
    onSuccess: async (said) => {
      await client.invalidateQueries({ queryKey: keys.subscriptions.all });
      setMessage(said);
    },
  });
  const sendNow = (s: ApiSubscription) =>
    action.mutate(async () => {
      setMessage('Sending… (the picture takes a few seconds)');
      const r = (await api<ApiSubscriptionSend>('POST', `/subscriptions/${s.id}/send`)).data;
      return r.ok ? `Sent: ${r.detail}.` : `Not sent: ${r.detail}.`;
    });
  const [confirmFirst, confirming] = useConfirm();
  const heading = useRef<HTMLHeadingElement>(null);
  const remove = async (s: ApiSubscription) => {
    const to = recipientsOf(s, me);
    const yes = await confirmFirst({
      title: `Delete the subscription “${scheduleText(s.schedule)}”?`,
      body: `${to.length ? `It will not be mailed again to ${andList(to)}.` : 'It is mailed to nobody now.'} The dashboard stays.`,
      confirm: 'Delete subscription',
    });
    if (!yes) return;
    action.mutate(
      async () => {
        await api('DELETE', `/subscriptions/${s.id}`);
        return 'Subscription deleted.';
      },
      // Its Delete goes with its row: the focus goes to the screen's heading rather than to the page's top.
      { onSuccess: () => heading.current?.focus() },
    );
  };
  const error = action.error ?? list.error ?? dashboard.error;
  return (
    <>
      <p className="crumbs">
        <Link to="dashboard" params={{ id }}>
          {title ?? 'The dashboard'}
        </Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        {title ? `Subscriptions of ${title}` : 'Subscriptions'}
      </h1>
      <p className="description">
        Each subscription mails a picture of the dashboard as you see it and each widget's data as CSV.
      </p>
      <p role="status" className="status">
        {message}
      </p>
      {error && (
        <p role="alert" className="error">
          {messageOf(error)}
        </p>
      )}
      {panel.kind === 'none' && (
        <button type="button" onClick={() => setPanel({ kind: 'form' })}>
          New subscription
        </button>
      )}
      {panel.kind === 'form' && dashboard.data && (
        <SubscriptionForm
          me={me}
          dashboard={dashboard.data.dashboard as ApiDashboard}
          editing={panel.editing}
          onCancel={() => setPanel({ kind: 'none' })}
          onSaved={async (said) => {
            setPanel({ kind: 'none' });
            await client.invalidateQueries({ queryKey: keys.subscriptions.all });
            setMessage(said);
          }}
        />
      )}
      {list.data && list.data.length === 0 && <p>No subscriptions yet.</p>}
      {list.data && list.data.length > 0 && (
        <WideTable label="Subscriptions">
          <table>
            <caption className="visually-hidden">Subscriptions</caption>
            <thead>
              <tr>
                <th scope="col">Sent</th>
                <th scope="col">To</th>
                <th scope="col">Parameters</th>
                <th scope="col">Next</th>
                <th scope="col">Last</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    {scheduleText(s.schedule)}
                    {s.enabled ? '' : ' (paused)'}
                  </th>
                  <td>{recipientsOf(s, me).join(', ')}</td>
                  <td>
                    {Object.entries(s.parameters)
                      .map(([k, v]) => `${k} = ${v}`)
                      .join(', ') || 'defaults'}
                  </td>
                  <td>{formatDateTime(s.nextRunAt)}</td>
                  <td>
                    {s.lastError ? `failed: ${s.lastError}` : s.lastSentAt ? formatDateTime(s.lastSentAt) : 'never'}
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      disabled={action.isPending}
                      onClick={() => sendNow(s)}
                      aria-label={`Send now: ${scheduleText(s.schedule)}`}
                    >
                      Send now
                    </button>
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => setPanel({ kind: 'form', editing: s })}
                      aria-label={`Edit ${scheduleText(s.schedule)}`}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => remove(s)}
                      aria-label={`Delete ${scheduleText(s.schedule)}`}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      {confirming}
    </>
  );
}
