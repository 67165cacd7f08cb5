import { useState } from 'react';
import { APP_TYPES } from './applications/app-types.ts';
import { Pager } from '../admin/Pager.tsx';
import { Link } from '../app/router.tsx';
import { SearchBar } from '../app/SearchBar.tsx';
import { SafeLink } from '../app/SafeLink.tsx';
import { useScreen } from '../app/useTitle.ts';
import { WideTable } from '../app/WideTable.tsx';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { useCursorPages } from '../data/paging.ts';
import { identityApi, type ApiApplication } from './api.ts';

/**
 * Identity's applications: every app registered at the identity service, searched by name or client id, a page at a
 * time, each name opening the app's page; "Register an application" opens the form. Names, descriptions and URLs are
 * whatever their authors typed: shown as text, a URL a link only when safe.
 */
export default function ApplicationsScreen() {
  useScreen('Applications');
  const [search, setSearch] = useState<string>();
  const pages = useCursorPages<ApiApplication>(
    keys.identity.applications(),
    '/applications',
    { q: search },
    25,
    identityApi.get,
  );
  const count = pages.items?.length;
  return (
    <>
      <h1>Applications</h1>
      <SearchBar
        id="apps-search"
        landmark="Applications"
        label="Search applications"
        hint="Part of a name or a client id, in any case."
        onSearch={setSearch}
      />
      <p>
        <Link to="applicationNew" className="button">
          Register an application
        </Link>
      </p>
      <p role="status" className="status">
        {count === undefined
          ? ''
          : count === 0
            ? search
              ? `No application matches “${search}”.`
              : 'No application is registered yet.'
            : `${count} application${count === 1 ? '' : 's'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}${search ? ` matching “${search}”` : ''}.`}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the identity service could not be reached')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="Applications">
          <table>
            <caption>Applications registered at identity{pages.page > 1 ? ` (page ${pages.page})` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Client id</th>
                <th scope="col">Type</th>
                <th scope="col">Redirect URIs</th>
                <th scope="col">Logo</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((a) => (
                <tr key={a.id}>
                  <th scope="row">
                    <Link to="application" params={{ id: a.id }}>
                      {a.name}
                    </Link>
                    {a.description && <span className="hint block">{a.description}</span>}
                  </th>
                  <td>
                    <code>{a.client_id}</code>
                  </td>
                  <td>
                    {APP_TYPES[a.app_type]?.name ?? a.app_type}
                    {a.first_party ? ', first-party' : ''}
                  </td>
                  <td>
                    {a.redirect_uris.length === 0 ? (
                      'none'
                    ) : (
                      <ul className="plain">
                        {a.redirect_uris.map((u) => (
                          <li key={u}>
                            <code>{u}</code>
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>{a.logo_url ? <SafeLink href={a.logo_url} /> : 'none'}</td>
                  <td>{a.active ? 'active' : 'deactivated'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="Applications" />
    </>
  );
}
