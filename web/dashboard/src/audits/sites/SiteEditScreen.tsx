import { useQuery } from '@tanstack/react-query';
import { Link } from '../../app/router.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import { siteQuery } from './api.ts';
import { SiteForm } from './SiteForm.tsx';
import './sites.css';

export default function SiteEditScreen({ id }: { id: string }) {
  useScreen('Edit site');
  const site = useQuery(siteQuery(id));
  return (
    <>
      <p>
        <Link to="auditSite" params={{ id }}>
          Back to the site
        </Link>
      </p>
      <h1>Edit site</h1>
      {site.error && (
        <p role="alert" className="error">
          {messageOf(site.error, 'the audit service could not be reached')}
        </p>
      )}
      {site.data && <SiteForm site={site.data} />}
    </>
  );
}
