import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../api/client.ts';
import { whenOrNever } from '../../app/datetime.ts';
import { language } from '../format.ts';
import { Link } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import { ConsentsSection } from './ConsentsSection.tsx';
import { CredentialsSection } from './CredentialsSection.tsx';
import { LinkedSection } from './LinkedSection.tsx';
import { personQuery } from './lists.ts';
import { MembershipsSection } from './MembershipsSection.tsx';
import { PersonActions } from './PersonActions.tsx';
import { RightsSection } from './RightsSection.tsx';
import { SessionsSection } from './SessionsSection.tsx';
import type { ApiPerson } from './types.ts';
import '../identity.css';

/**
 * One person at identity: their profile; deactivating them, signing them out everywhere, resetting their second
 * factors, a password link; their console rights; their credentials by kind (never a secret), linked accounts,
 * sessions, consents and organization memberships. Everything they or others typed is text.
 */
export default function PersonScreen({ id }: { id: string }) {
  const person = useQuery(personQuery(id));
  useScreen(person.data?.display_name ?? 'Person');
  if (person.isPending) return <p role="status">Loading the person…</p>;
  if (person.isError || person.data.type !== 'human') {
    const gone = !person.isError || (person.error instanceof ApiError && [400, 404].includes(person.error.status));
    return (
      <>
        <p className="crumbs">
          <Link to="people">People</Link>
        </p>
        <h1>{gone ? 'No such person' : 'The person could not be loaded'}</h1>
        <p role="alert" className="error">
          {gone
            ? 'Identity has no person at this address.'
            : messageOf(person.error, 'the identity service could not be reached')}
        </p>
      </>
    );
  }
  const p = person.data;
  return (
    <>
      <p className="crumbs">
        <Link to="people">People</Link>
      </p>
      <h1 className="typed">{p.display_name}</h1>
      <Profile person={p} />
      <PersonActions person={p} />
      <RightsSection person={p} />
      <CredentialsSection id={p.id} />
      <LinkedSection id={p.id} />
      <SessionsSection id={p.id} />
      <ConsentsSection id={p.id} />
      <MembershipsSection id={p.id} />
    </>
  );
}

function Profile({ person: p }: { person: ApiPerson }) {
  const h = p.human;
  const name = [h?.given_name, h?.family_name].filter(Boolean).join(' ');
  return (
    <dl className="facts">
      <dt>Email</dt>
      <dd>
        {p.email} ({h?.email_verified_at ? `verified ${whenOrNever(h.email_verified_at)}` : 'not verified'})
      </dd>
      {name && (
        <>
          <dt>Name</dt>
          <dd>{name}</dd>
        </>
      )}
      <dt>Status</dt>
      <dd>{p.active ? 'active' : 'deactivated: they cannot sign in, and their tokens no longer count'}</dd>
      <dt>Last sign-in</dt>
      <dd>{whenOrNever(h?.last_login_at)}</dd>
      <dt>Account made</dt>
      <dd>{whenOrNever(p.created_at)}</dd>
      {h?.locale && (
        <>
          <dt>Language</dt>
          <dd>{language(h.locale)}</dd>
        </>
      )}
      {h?.timezone && (
        <>
          <dt>Time zone</dt>
          <dd>{h.timezone}</dd>
        </>
      )}
      {h?.avatar_url && (
        <>
          <dt>Picture</dt>
          <dd>
            <SafeLink href={h.avatar_url} />
          </dd>
        </>
      )}
    </dl>
  );
}
