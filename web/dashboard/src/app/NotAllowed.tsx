import type { ApiUser } from '../api/types.ts';
import { useScreen } from './useTitle.ts';

/**
 * What a role may not do is not offered (the navigation hides it too); a person who types the address anyway is told
 * so, and the API would refuse them regardless.
 */
export function NotAllowed({ me }: { me: ApiUser }) {
  useScreen('Not available');
  return (
    <>
      <h1>Not available</h1>
      <p>This page is not available with the role {me.role}. Ask an admin or owner of your tenant if you need it.</p>
    </>
  );
}
