import { whenOrNever } from '../../app/datetime.ts';
import { providerName } from '../../app/kind-names.ts';
import { PersonList } from './PersonList.tsx';
import type { ApiLinkedAccount } from './types.ts';

/** The accounts at other providers (GitHub, Google…) a person signs in with; the email is what the provider said. */
export function LinkedSection({ id }: { id: string }) {
  return (
    <PersonList<ApiLinkedAccount>
      id={id}
      what="external-identities"
      title="Linked accounts"
      caption="Accounts at other providers they sign in with"
      none="No account at another provider is linked."
      columns={['Provider', 'Email there', 'Linked', 'Last sign-in']}
      row={(a) => (
        <tr key={a.id}>
          <th scope="row" className="typed">
            {providerName(a.provider)}
          </th>
          <td className="typed">
            {a.email ?? 'none given'}
            {a.email && !a.email_verified ? ' (not verified there)' : ''}
          </td>
          <td>{whenOrNever(a.created_at)}</td>
          <td>{whenOrNever(a.last_login_at)}</td>
        </tr>
      )}
    />
  );
}
