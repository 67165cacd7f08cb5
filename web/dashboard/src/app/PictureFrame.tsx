import { lazy, Suspense } from 'react';
import { LoadBoundary } from './LoadBoundary.tsx';
import { usePath } from './router.tsx';
import { matchRoute } from './routes.ts';
import { useScreen } from './useTitle.ts';

const DashboardPicture = lazy(() => import('../dashboards/DashboardPicture.tsx'));

/**
 * The whole app for a render's credential (a subscription's mail, a PNG or PDF download) (`readOnly` in /auth/me, which the service answers from the
 * session, never from the address): the dashboard of the address as a picture, without the banner, the navigation
 * or any control, which the credential could not use (they answer it 403) and a mail's reader cannot press.
 */
export function PictureFrame() {
  const match = matchRoute(usePath());
  return (
    <main id="main" className="picture">
      {match?.name === 'dashboard' ? (
        <LoadBoundary>
          <Suspense fallback={<p role="status">Loading the dashboard…</p>}>
            <DashboardPicture id={Number(match.params.id)} />
          </Suspense>
        </LoadBoundary>
      ) : (
        <NothingToDraw />
      )}
    </main>
  );
}

function NothingToDraw() {
  useScreen('Nothing to draw');
  return (
    <>
      <h1>Nothing to draw</h1>
      <p>This sign-in only draws a dashboard, for a subscription's mail or a download.</p>
    </>
  );
}
