import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { Pager } from '../../admin/Pager.tsx';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { OneTimeValue } from '../../app/OneTimeValue.tsx';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi } from '../api.ts';
import {
  KNOWN_ROLES,
  ROLE_PATTERN,
  type ApiInvite,
  type ApiIssuedInvite,
  type ApiOrganization,
  type InviteStatus,
} from './api.ts';

const STATUSES: Record<InviteStatus, string> = {
  pending: 'Pending',
  accepted: 'Accepted',
  declined: 'Declined',
  expired: 'Expired',
  revoked: 'Revoked',
};

/** What a link just issued comes with: mailed or not, and until when it works. */
const issuedNote = (issued: ApiIssuedInvite) =>
  `${issued.mailed ? `Also mailed to ${issued.invite.email}.` : 'No mail was sent (identity has no mail server set): pass the link on yourself.'} It works once, until ${whenOrNever(issued.invite.expires_at)}, and is not shown again.`;

/**
 * An organization's invitations: send one to an email address (the link is shown once, and mailed when identity has a
 * mail server), see each one's status, resend a pending one (a new link; the old one stops working), revoke it.
 */
export function InvitesPanel({ org }: { org: ApiOrganization }) {
  const client = useQueryClient();
  const base = `/organizations/${encodeURIComponent(org.id)}/invites`;
  const [status, setStatus] = useState<InviteStatus | ''>('');
  const pages = useCursorPages<ApiInvite>(
    keys.organizations.invites(org.id),
    base,
    { status: status || undefined },
    25,
    identityApi.get,
  );
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [message, setMessage] = useState('');
  const [issued, setIssued] = useState<ApiIssuedInvite>();
  const [said, setSaid] = useState('');
  const [revoking, setRevoking] = useState<ApiInvite>();
  const heading = useRef<HTMLHeadingElement>(null);
  const changed = () => client.invalidateQueries({ queryKey: keys.organizations.invites(org.id) });

  const invite = useMutation({
    mutationFn: () =>
      identityApi.call<ApiIssuedInvite>('POST', base, {
        body: { email: email.trim(), role, ...(message.trim() ? { message: message.trim() } : {}) },
      }),
    onMutate: () => {
      setSaid('');
      setIssued(undefined);
    },
    onSuccess: async (i) => {
      setIssued(i);
      setSaid(`${i.invite.email} is invited as ${i.invite.role}.`);
      setEmail('');
      setMessage('');
      await changed();
    },
  });
  const resend = useMutation({
    mutationFn: (i: ApiInvite) =>
      identityApi.call<ApiIssuedInvite>('POST', `${base}/${encodeURIComponent(i.id)}/resend`),
    onMutate: () => {
      setSaid('');
      setIssued(undefined);
    },
    onSuccess: async (i) => {
      setIssued(i);
      setSaid(`The invitation of ${i.invite.email} is sent again: the link sent before no longer works.`);
      await changed();
    },
  });
  const revoke = useMutation({
    mutationFn: (i: ApiInvite) => identityApi.call<ApiInvite>('POST', `${base}/${encodeURIComponent(i.id)}/revoke`),
    // The list is read again before the dialog closes: the focus then goes back to a button still there, or to the
    // section's heading when the row no longer has it.
    onSuccess: async (i) => {
      await changed();
      setRevoking(undefined);
      setIssued(undefined);
      setSaid(`The invitation of ${i.email} is revoked: its link no longer works.`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  const count = pages.items?.length;
  const what = status ? `${STATUSES[status].toLowerCase()} ` : '';
  const refused = invite.error ?? resend.error;

  return (
    <section aria-labelledby="invites-title">
      <h2 id="invites-title" ref={heading} tabIndex={-1}>
        Invitations
      </h2>
      {org.active ? (
        <form className="form inline-form" onSubmit={submit} aria-label="Invite someone">
          <label htmlFor="invite-email">Email</label>
          <input
            id="invite-email"
            type="email"
            required
            maxLength={320}
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <label htmlFor="invite-role">Role</label>
          <input
            id="invite-role"
            required
            maxLength={100}
            pattern={ROLE_PATTERN}
            list="invite-roles"
            autoComplete="off"
            value={role}
            onChange={(e) => setRole(e.target.value)}
          />
          <datalist id="invite-roles">
            {KNOWN_ROLES.map((r) => (
              <option key={r} value={r} />
            ))}
          </datalist>
          <label htmlFor="invite-message">Message (optional)</label>
          <textarea
            id="invite-message"
            maxLength={2000}
            rows={2}
            value={message}
            onChange={(e) => setMessage(e.target.value)}
          />
          <button type="submit" disabled={invite.isPending}>
            Send invitation
          </button>
        </form>
      ) : (
        <p className="hint">The organization is deactivated: reactivate it to invite anyone.</p>
      )}
      <p role="status" className="status">
        {said}
      </p>
      {refused && (
        <p role="alert" className="error">
          {messageOf(refused)}
        </p>
      )}
      {issued && (
        <OneTimeValue
          label={`Invitation link for ${issued.invite.email}`}
          value={issued.link}
          note={issuedNote(issued)}
        />
      )}
      <div className="toolbar">
        <div className="field">
          <label htmlFor="invites-status">Show</label>
          <select id="invites-status" value={status} onChange={(e) => setStatus(e.target.value as InviteStatus | '')}>
            <option value="">Every invitation</option>
            {(Object.keys(STATUSES) as InviteStatus[]).map((s) => (
              <option key={s} value={s}>
                {STATUSES[s]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p role="status" className="status">
        {count === undefined
          ? ''
          : count === 0
            ? `No ${what}invitation.`
            : `${count} ${what}invitation${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the invitations could not be loaded')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Invitations">
          <table>
            <caption>Invitations to {org.name}, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
                <th scope="col">Last sent</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((i) => (
                <tr key={i.id}>
                  <th scope="row">
                    {i.email}
                    {i.message && <span className="hint block">“{i.message}”</span>}
                  </th>
                  <td>{i.role}</td>
                  <td>{STATUSES[i.status] ?? i.status}</td>
                  <td>{i.status === 'pending' ? whenOrNever(i.expires_at) : '—'}</td>
                  <td>
                    {whenOrNever(i.last_sent_at)}
                    {i.resend_count > 0 ? ` (sent ${i.resend_count + 1} times)` : ''}
                  </td>
                  <td className="actions">
                    {i.status === 'pending' ? (
                      <>
                        <button
                          type="button"
                          className="secondary"
                          disabled={resend.isPending}
                          aria-label={`Resend the invitation of ${i.email}`}
                          onClick={() => resend.mutate(i)}
                        >
                          Resend
                        </button>
                        <button
                          type="button"
                          className="danger"
                          aria-label={`Revoke the invitation of ${i.email}`}
                          onClick={() => setRevoking(i)}
                        >
                          Revoke
                        </button>
                      </>
                    ) : (
                      'none'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Invitations" />
      {revoking && (
        <ConfirmDialog
          title={`Revoke the invitation of ${revoking.email}?`}
          confirm="Revoke invitation"
          busy={revoke.isPending}
          error={revoke.error ? messageOf(revoke.error) : undefined}
          onConfirm={() => revoke.mutate(revoking)}
          onClose={() => {
            setRevoking(undefined);
            revoke.reset();
          }}
          fallback={() => heading.current}
        >
          <p>Its link stops working at once. A new invitation can be sent to the same address later.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
