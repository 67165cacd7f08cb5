import type { ApiUser } from '../api/types.ts';
import { atLeast } from '../app/roles.ts';
import { useScreen } from '../app/useTitle.ts';
import { AuditScreen } from './AuditScreen.tsx';
import { TenantsScreen } from './TenantsScreen.tsx';
import { UsersScreen } from './UsersScreen.tsx';

/**
 * The administration screens, loaded when first opened. What a role may not do is not offered (the nav hides
 * it too); a person who types the address anyway is told so, and the API would refuse them regardless.
 */
export default function AdminScreen({ me, path }: { me: ApiUser; path: string }) {
  if (path === '/admin/users' && atLeast(me, 'admin')) return <UsersScreen me={me} />;
  if (path === '/admin/audit' && atLeast(me, 'admin')) return <AuditScreen />;
  if (path === '/admin/tenants' && atLeast(me, 'owner')) return <TenantsScreen me={me} />;
  return <NotAllowed me={me} />;
}

function NotAllowed({ me }: { me: ApiUser }) {
  useScreen('Not available');
  return (
    <>
      <h1>Not available</h1>
      <p>This page is not available with the role {me.role}. Ask an admin or owner of your tenant if you need it.</p>
    </>
  );
}
