import { whenOrNever } from '../../app/datetime.ts';
import { PersonList } from './PersonList.tsx';
import type { ApiMembership } from './types.ts';

/** The organizations a person belongs to, with their role in each; names are what their admins typed. */
export function MembershipsSection({ id }: { id: string }) {
  return (
    <PersonList<ApiMembership>
      id={id}
      what="memberships"
      title="Organizations"
      caption="Organizations they belong to"
      none="They belong to no organization."
      columns={['Organization', 'Role', 'Since', 'Status']}
      row={(m) => (
        <tr key={m.id}>
          <th scope="row" className="typed">
            {m.organization_name} <span className="hint">({m.organization_slug})</span>
          </th>
          <td className="typed">{m.role}</td>
          <td>{whenOrNever(m.created_at)}</td>
          <td>
            {!m.active ? 'membership ended' : m.organization_active ? 'member' : 'the organization is deactivated'}
          </td>
        </tr>
      )}
    />
  );
}
