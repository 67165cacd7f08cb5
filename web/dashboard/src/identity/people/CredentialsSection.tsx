import { whenOrNever } from '../../app/datetime.ts';
import { PersonList } from './PersonList.tsx';
import type { ApiCredential } from './types.ts';

const KINDS: Record<ApiCredential['type'], string> = {
  password: 'Password',
  webauthn: 'Passkey',
  totp: 'Authenticator app',
  api_key: 'API key',
  keypair: 'Key pair',
  client_secret: 'Client secret',
};
const ORDER = Object.keys(KINDS);
const live = (c: ApiCredential) => c.active && !c.revoked && (!c.expires_at || Date.parse(c.expires_at) > Date.now());

/**
 * A person's live credentials, by kind (password, passkeys, authenticator app, keys): when each was made and last
 * used, never a secret (identity keeps only fingerprints). Revoked and expired ones are counted, kept on record.
 */
export function CredentialsSection({ id }: { id: string }) {
  return (
    <PersonList<ApiCredential>
      id={id}
      what="credentials"
      title="Credentials"
      caption="Credentials that work now, by kind"
      none="No credential works now: they sign in with a linked account, or cannot sign in yet."
      columns={['Kind', 'Name', 'Made', 'Last used', 'Expires']}
      filter={live}
      order={(a, b) => ORDER.indexOf(a.type) - ORDER.indexOf(b.type)}
      row={(c) => (
        <tr key={c.id}>
          <th scope="row">{KINDS[c.type] ?? c.type}</th>
          <td className="typed">{c.name ?? c.identifier ?? ''}</td>
          <td>{whenOrNever(c.created_at)}</td>
          <td>
            {whenOrNever(c.last_used_at)}
            {c.last_used_ip ? ` from ${c.last_used_ip}` : ''}
          </td>
          <td>{c.expires_at ? whenOrNever(c.expires_at) : 'never'}</td>
        </tr>
      )}
      after={(all) => {
        const old = all.filter((c) => !live(c)).length;
        return old > 0 ? (
          <p className="hint">
            {old} revoked or expired credential{old === 1 ? ' is' : 's are'} kept on record.
          </p>
        ) : null;
      }}
    />
  );
}
