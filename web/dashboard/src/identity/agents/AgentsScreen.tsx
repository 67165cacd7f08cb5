import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { Pager } from '../../admin/Pager.tsx';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi } from '../api.ts';
import { STATUS_NAMES, type ApiDelegation, type ApprovalStatus } from './api.ts';

type Shown = ApprovalStatus | 'none' | '';
type Action = 'approve' | 'deny' | 'withdraw';
interface Pending {
  action: Action;
  d: ApiDelegation;
}

const personName = (d: ApiDelegation) => d.person.display_name || d.person.email || d.person.id;
const agentName = (d: ApiDelegation) => d.agent.display_name || d.agent.identifier;
const statusOf = (d: ApiDelegation): ApprovalStatus | 'none' => d.approval?.status ?? 'none';
const list = (scopes: string[]) => (scopes.length ? scopes.join(', ') : 'none');

const TITLES: Record<Action, (d: ApiDelegation) => string> = {
  approve: (d) => `Approve ${agentName(d)} for ${personName(d)}?`,
  deny: (d) => `Decline ${agentName(d)}'s request for ${personName(d)}?`,
  withdraw: (d) => `Withdraw ${agentName(d)}'s approval for ${personName(d)}?`,
};
const BUTTONS: Record<Action, string> = { approve: 'Approve', deny: 'Decline', withdraw: 'Withdraw approval' };

function consequence({ action, d }: Pending): string {
  if (action === 'approve')
    return `${agentName(d)} may then act for ${personName(d)} with: ${list(d.approval?.pending_scopes ?? [])}. You approve on their behalf, and the approval names you.`;
  if (action === 'deny')
    return `${agentName(d)} may not act for ${personName(d)} with what it asked for; what was approved before stays.`;
  return `${agentName(d)} may no longer act for ${personName(d)}: the ${d.live_tokens} live token${d.live_tokens === 1 ? '' : 's'} it holds for them ${d.live_tokens === 1 ? 'is' : 'are'} revoked at once, with those delegated from ${d.live_tokens === 1 ? 'it' : 'them'}.`;
}

/**
 * Who acts for whom: every agent acting, or asking to act, for a person, with what it may do, what it asks, and the
 * tokens it holds. A pending request can be approved or declined on the person's behalf; an approval withdrawn.
 */
export default function AgentsScreen() {
  useScreen('Agents');
  const client = useQueryClient();
  const [shown, setShown] = useState<Shown>('');
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState<string>();
  const [said, setSaid] = useState('');
  const [pending, setPending] = useState<Pending>();
  const pages = useCursorPages<ApiDelegation>(
    keys.delegations,
    '/delegations',
    { status: shown || undefined, q: search },
    25,
    identityApi.get,
  );
  const act = useMutation({
    mutationFn: async ({ action, d }: Pending) => {
      const base = `/principals/${encodeURIComponent(d.person.id)}/agents/${encodeURIComponent(d.agent.id)}`;
      if (action === 'withdraw') await identityApi.call('DELETE', `${base}/approval`);
      else await identityApi.call('POST', `${base}/${action}`);
    },
    // Read again before the dialog closes, so the focus goes back to a button still there, or to the heading.
    onSuccess: async (_, { action, d }) => {
      await client.invalidateQueries({ queryKey: keys.delegations });
      setPending(undefined);
      setSaid(
        action === 'approve'
          ? `${agentName(d)} may act for ${personName(d)}.`
          : action === 'deny'
            ? `${agentName(d)}'s request for ${personName(d)} is declined.`
            : `${agentName(d)} no longer acts for ${personName(d)}; its tokens for them are revoked.`,
      );
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaid('');
    setSearch(typed.trim() || undefined);
  };
  const count = pages.items?.length;

  return (
    <>
      <h1>Agents</h1>
      <p className="description">
        Agents acting, or asking to act, for people. A person answers their own agents' requests on identity's /agents
        page; here an admin may answer one on their behalf, or withdraw an approval.
      </p>
      <search aria-label="Agents">
        <form className="filters-bar" onSubmit={submit}>
          <div className="field">
            <label htmlFor="agents-status">Status</label>
            <select
              id="agents-status"
              value={shown}
              onChange={(e) => {
                setSaid('');
                setShown(e.target.value as Shown);
              }}
            >
              <option value="">Every status</option>
              {(Object.keys(STATUS_NAMES) as (ApprovalStatus | 'none')[]).map((s) => (
                <option key={s} value={s}>
                  {STATUS_NAMES[s]}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="agents-search">Person or agent</label>
            <input
              id="agents-search"
              type="search"
              maxLength={200}
              aria-describedby="agents-search-hint"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
            />
            <span id="agents-search-hint" className="hint">
              Part of a name, an email, an identifier or a model
            </span>
          </div>
          <div className="actions">
            <button type="submit">Search</button>
          </div>
        </form>
      </search>
      <p role="status" className="status">
        {said ||
          (count === undefined
            ? ''
            : count === 0
              ? 'No agent matches.'
              : `${count} delegation${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`)}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the identity service could not be reached')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Delegations">
          <table>
            <caption>Who acts for whom</caption>
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Agent</th>
                <th scope="col">Status</th>
                <th scope="col">May act with</th>
                <th scope="col">Asks for</th>
                <th scope="col">Live tokens</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((d) => {
                const status = statusOf(d);
                return (
                  <tr key={`${d.person.id}:${d.agent.id}`}>
                    <th scope="row">
                      {personName(d)}
                      {d.person.email && d.person.email !== personName(d) && (
                        <span className="hint block">{d.person.email}</span>
                      )}
                    </th>
                    <td>
                      {agentName(d)}
                      <span className="hint block">
                        {d.agent.model_id}
                        {d.agent.version ? ` ${d.agent.version}` : ''}
                        {d.agent.active ? '' : ', deactivated'}
                      </span>
                    </td>
                    <td>
                      {STATUS_NAMES[status]}
                      {status === 'none' && !d.agent.requires_confirmation && (
                        <span className="hint block">acts without approval</span>
                      )}
                    </td>
                    <td>{list(d.approval?.scopes ?? [])}</td>
                    <td>{list(d.approval?.pending_scopes ?? [])}</td>
                    <td>{d.live_tokens}</td>
                    <td>{whenOrNever(d.approval?.last_used_at)}</td>
                    <td className="actions">
                      {status === 'pending' && (
                        <>
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`Approve ${agentName(d)} for ${personName(d)}`}
                            onClick={() => setPending({ action: 'approve', d })}
                          >
                            Approve
                          </button>
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`Decline ${agentName(d)} for ${personName(d)}`}
                            onClick={() => setPending({ action: 'deny', d })}
                          >
                            Decline
                          </button>
                        </>
                      )}
                      {(status === 'approved' || status === 'pending') && (
                        <button
                          type="button"
                          className="danger"
                          aria-label={`Withdraw ${agentName(d)}'s approval for ${personName(d)}`}
                          onClick={() => setPending({ action: 'withdraw', d })}
                        >
                          Withdraw
                        </button>
                      )}
                      {status !== 'approved' && status !== 'pending' && 'none'}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Delegations" />
      {pending && (
        <ConfirmDialog
          title={TITLES[pending.action](pending.d)}
          confirm={BUTTONS[pending.action]}
          busy={act.isPending}
          error={act.error ? messageOf(act.error) : undefined}
          onConfirm={() => act.mutate(pending)}
          onClose={() => {
            setPending(undefined);
            act.reset();
          }}
        >
          <p>{consequence(pending)}</p>
        </ConfirmDialog>
      )}
    </>
  );
}
