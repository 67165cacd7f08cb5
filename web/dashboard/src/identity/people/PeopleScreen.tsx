import { useState } from 'react';
import { Pager } from '../../admin/Pager.tsx';
import { whenOrNever } from '../../app/datetime.ts';
import { Link } from '../../app/router.tsx';
import { SearchBar } from '../../app/SearchBar.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { useCursorPages } from '../../data/paging.ts';
import { identityApi } from '../api.ts';
import type { ApiPerson } from './types.ts';
import '../identity.css';

/**
 * The people identity knows, in name order, searched by any part of a name or an email, a page at a time; each opens
 * the person's page. Names are whatever people typed: text only.
 */
export default function PeopleScreen() {
  useScreen('People');
  const [search, setSearch] = useState<string>();
  const pages = useCursorPages<ApiPerson>(keys.identity.people(), '/people', { q: search }, 25, identityApi.get);
  const count = pages.items?.length;
  return (
    <>
      <h1>People</h1>
      <SearchBar
        id="people-search"
        landmark="People"
        label="Search people"
        hint="Part of a name or an email address, in any case."
        onSearch={setSearch}
      />
      <p role="status" className="status">
        {count === undefined
          ? ''
          : count === 0
            ? search
              ? `Nobody matches “${search}”.`
              : 'Identity knows nobody yet.'
            : `${count} ${count === 1 ? 'person' : 'people'}${pages.hasNext || pages.page > 1 ? ` on page ${pages.page}` : ''}${search ? ` matching “${search}”` : ''}.`}
      </p>
      {pages.error !== null && pages.error !== undefined && (
        <p role="alert" className="error">
          {messageOf(pages.error, 'the identity service could not be reached')}
        </p>
      )}
      {pages.items && pages.items.length > 0 && (
        <WideTable label="People">
          <table>
            <caption>People at identity{pages.page > 1 ? ` (page ${pages.page})` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Status</th>
                <th scope="col">Last sign-in</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((p) => (
                <tr key={p.id}>
                  <th scope="row" className="typed">
                    <Link to="person" params={{ id: p.id }}>
                      {p.display_name}
                    </Link>
                  </th>
                  <td className="typed">{p.email}</td>
                  <td>{p.active ? 'active' : 'deactivated'}</td>
                  <td>{whenOrNever(p.human?.last_login_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
      <Pager pages={pages} label="People" />
    </>
  );
}
