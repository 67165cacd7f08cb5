import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { whenOrNever } from '../../app/datetime.ts';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { Link } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { identityApi } from '../api.ts';
import { ORG_TYPES, type ApiOrganization } from './api.ts';
import { InvitesPanel } from './InvitesPanel.tsx';
import { EnterpriseSsoPanel } from './EnterpriseSsoPanel.tsx';
import { MembersPanel } from './MembersPanel.tsx';
import { SubscriptionPanel } from '../market/SubscriptionPanel.tsx';

/** One organization: what it is, deactivating or reactivating it, its members and their roles, and its invitations. */
export default function OrganizationScreen({ id }: { id: string }) {
  const client = useQueryClient();
  const org = useQuery({
    queryKey: keys.organizations.one(id),
    queryFn: ({ signal }) => identityApi.get<ApiOrganization>(`/organizations/${encodeURIComponent(id)}`, signal),
  });
  useScreen(org.data ? `Organization ${org.data.name}` : 'Organization');
  const [confirming, setConfirming] = useState(false);
  const [said, setSaid] = useState('');
  const toggle = useMutation({
    mutationFn: (active: boolean) =>
      identityApi.call<ApiOrganization>('PATCH', `/organizations/${encodeURIComponent(id)}`, { body: { active } }),
    onSuccess: async (o) => {
      setConfirming(false);
      setSaid(o.active ? `${o.name} is active again.` : `${o.name} is deactivated.`);
      client.setQueryData(keys.organizations.one(id), o);
      await client.invalidateQueries({ queryKey: keys.organizations.list() });
    },
  });

  if (org.error)
    return (
      <>
        <p className="crumbs">
          <Link to="organizations">Organizations</Link>
        </p>
        <h1>Organization</h1>
        <p role="alert" className="error">
          {messageOf(org.error, 'the identity service could not be reached')}
        </p>
      </>
    );
  if (!org.data)
    return (
      <p role="status" className="status">
        Loading the organization…
      </p>
    );
  const o = org.data;
  return (
    <>
      <p className="crumbs">
        <Link to="organizations">Organizations</Link>
      </p>
      <h1>{o.name}</h1>
      <dl className="facts">
        <dt>Slug</dt>
        <dd>
          <code>{o.slug}</code>
        </dd>
        <dt>Type</dt>
        <dd>{ORG_TYPES[o.org_type] ?? o.org_type}</dd>
        <dt>Status</dt>
        <dd>{o.active ? 'active' : 'deactivated: nobody can be added or invited'}</dd>
        {o.description && (
          <>
            <dt>Description</dt>
            <dd>{o.description}</dd>
          </>
        )}
        {o.website_url && (
          <>
            <dt>Website</dt>
            <dd>
              <SafeLink href={o.website_url} />
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{whenOrNever(o.created_at)}</dd>
      </dl>
      <p role="status" className="status">
        {said}
      </p>
      {toggle.error && !confirming && (
        <p role="alert" className="error">
          {messageOf(toggle.error)}
        </p>
      )}
      <div className="actions">
        {o.active ? (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Deactivate organization
          </button>
        ) : (
          <button type="button" className="secondary" disabled={toggle.isPending} onClick={() => toggle.mutate(true)}>
            Reactivate organization
          </button>
        )}
      </div>
      {confirming && (
        <ConfirmDialog
          title={`Deactivate ${o.name}?`}
          confirm="Deactivate"
          busy={toggle.isPending}
          error={toggle.error ? messageOf(toggle.error) : undefined}
          onConfirm={() => toggle.mutate(false)}
          onClose={() => {
            setConfirming(false);
            toggle.reset();
          }}
        >
          <p>
            Nobody can be added to it or invited while it is deactivated, and tokens bound to it stop counting at once.
            It is kept, and can be reactivated.
          </p>
        </ConfirmDialog>
      )}
      <MembersPanel org={o} />
      <InvitesPanel org={o} />
      <EnterpriseSsoPanel org={o} />
      <SubscriptionPanel org={o} />
    </>
  );
}
