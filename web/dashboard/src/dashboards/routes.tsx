import type { ApiUser } from '../api/types.ts';
import { usePath } from '../app/router.tsx';
import { DashboardScreen } from './DashboardScreen.tsx';
import { DashboardsScreen } from './DashboardsScreen.tsx';

/** `/dashboards` (the list) and `/dashboards/<id>` (one dashboard): loaded as one chunk when first opened. */
export default function DashboardRoutes({ me }: { me: ApiUser }) {
  const path = usePath();
  const m = /^\/dashboards\/(\d+)$/.exec(path);
  if (m) return <DashboardScreen key={m[1]} me={me} id={Number(m[1])} />;
  return <DashboardsScreen me={me} />;
}
