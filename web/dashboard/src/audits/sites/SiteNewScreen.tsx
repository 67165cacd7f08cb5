import { useScreen } from '../../app/useTitle.ts';
import { Link } from '../../app/router.tsx';
import { SiteForm } from './SiteForm.tsx';
import './sites.css';

export default function SiteNewScreen() {
  useScreen('Add a site');
  return (
    <>
      <p>
        <Link to="auditSites">Sites</Link>
      </p>
      <h1>Add a site</h1>
      <SiteForm />
    </>
  );
}
