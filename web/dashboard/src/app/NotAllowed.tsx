import type { ApiUser } from '../api/types.ts';
import { useScreen } from './useTitle.ts';
import { SECTIONS } from './routes.ts';
import type { Right } from '../console/config.ts';

/**
 * What a role (or a console right) may not do is not offered (the navigation hides it too); a person who types the
 * address anyway is told so, and the API would refuse them regardless.
 */
export function NotAllowed({ me, right }: { me: ApiUser; right?: Right | undefined }) {
  useScreen('Not available');
  return (
    <>
      <h1>Not available</h1>
      {right ? (
        <p>
          This page needs the {SECTIONS[right]} right at the platform. Ask a person who manages the platform's accounts
          if you need it.
        </p>
      ) : (
        <p>This page is not available with the role {me.role}. Ask an admin or owner of your tenant if you need it.</p>
      )}
    </>
  );
}
