import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { DialogEnd, ModalDialog } from '../../app/ModalDialog.tsx';
import { Link, navigate } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { slugify } from '../../app/slug.ts';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi } from '../api.ts';
import { ORG_TYPES, type ApiOrganization, type OrgType } from './api.ts';

const SHOWN = { active: 'Active', inactive: 'Deactivated', all: 'All' } as const;
type Shown = keyof typeof SHOWN;
const FILTER: Record<Shown, string | undefined> = { active: 'true', inactive: 'false', all: undefined };

/**
 * Identity's organizations, a page at a time: each opens its members and invitations. "New organization" asks the name
 * (the slug follows it until edited), the type and a description, in a dialog.
 */
export default function OrganizationsScreen() {
  useScreen('Organizations');
  const [shown, setShown] = useState<Shown>('active');
  const [creating, setCreating] = useState(false);
  const pages = useCursorPages<ApiOrganization>(
    keys.organizations.list(),
    '/organizations',
    { active: FILTER[shown] },
    25,
    identityApi.get,
  );
  const count = pages.items?.length;
  const what = shown === 'all' ? '' : `${SHOWN[shown].toLowerCase()} `;
  return (
    <>
      <h1>Organizations</h1>
      <div className="toolbar">
        <button type="button" onClick={() => setCreating(true)}>
          New organization
        </button>
        <div className="field">
          <label htmlFor="orgs-shown">Show</label>
          <select id="orgs-shown" value={shown} onChange={(e) => setShown(e.target.value as Shown)}>
            {(Object.keys(SHOWN) as Shown[]).map((s) => (
              <option key={s} value={s}>
                {SHOWN[s]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p role="status" className="status">
        {count === undefined
          ? ''
          : count === 0
            ? `No ${what}organization yet.`
            : `${count} ${what}organization${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}.`}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the identity service could not be reached')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Organizations">
          <table>
            <caption>Organizations at identity{pages.page > 1 ? ` (page ${pages.page})` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Slug</th>
                <th scope="col">Type</th>
                <th scope="col">Website</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((o) => (
                <tr key={o.id}>
                  <th scope="row">
                    <Link to="organization" params={{ id: o.id }}>
                      {o.name}
                    </Link>
                    {o.description && <span className="hint block">{o.description}</span>}
                  </th>
                  <td>
                    <code>{o.slug}</code>
                  </td>
                  <td>{ORG_TYPES[o.org_type] ?? o.org_type}</td>
                  <td>{o.website_url ? <SafeLink href={o.website_url} /> : 'none'}</td>
                  <td>{o.active ? 'active' : 'deactivated'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Organizations" />
      {creating && <NewOrganization onClose={() => setCreating(false)} />}
    </>
  );
}

function NewOrganization({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState<string>();
  const [type, setType] = useState<OrgType>('team');
  const [description, setDescription] = useState('');
  const slugShown = slug ?? slugify(name, '', 63);
  const create = useMutation({
    mutationFn: () =>
      identityApi.call<ApiOrganization>('POST', '/organizations', {
        body: {
          name: name.trim(),
          slug: slugShown,
          org_type: type,
          ...(description.trim() ? { description: description.trim() } : {}),
        },
      }),
    onSuccess: async (org) => {
      await client.invalidateQueries({ queryKey: keys.organizations.all });
      onClose();
      navigate('organization', { id: org.id });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <ModalDialog title="New organization" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label htmlFor="org-name">Name</label>
        <input
          id="org-name"
          required
          maxLength={200}
          autoComplete="off"
          data-autofocus
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <label htmlFor="org-slug">Slug</label>
        <input
          id="org-slug"
          required
          maxLength={63}
          pattern="[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?"
          autoComplete="off"
          aria-describedby="org-slug-hint"
          value={slugShown}
          onChange={(e) => setSlug(e.target.value)}
        />
        <p id="org-slug-hint" className="hint">
          Lower-case letters, digits and inner hyphens; unique among organizations.
        </p>
        <label htmlFor="org-type">Type</label>
        <select id="org-type" value={type} onChange={(e) => setType(e.target.value as OrgType)}>
          {(Object.keys(ORG_TYPES) as OrgType[]).map((t) => (
            <option key={t} value={t}>
              {ORG_TYPES[t]}
            </option>
          ))}
        </select>
        <label htmlFor="org-description">Description (optional)</label>
        <textarea
          id="org-description"
          maxLength={2000}
          rows={3}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        <DialogEnd error={create.error ? messageOf(create.error) : undefined} onClose={onClose}>
          <button type="submit" disabled={create.isPending}>
            Create organization
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}
