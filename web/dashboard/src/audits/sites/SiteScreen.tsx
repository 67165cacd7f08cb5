import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../../app/ModalDialog.tsx';
import { Link, navigate } from '../../app/router.tsx';
import { SafeLink } from '../../app/SafeLink.tsx';
import { useScreen } from '../../app/useTitle.ts';
import { messageOf } from '../../data/errors.ts';
import { siteQuery, sitesApi, siteKeys, type ApiSite } from './api.ts';
import { NotifyPanel } from './NotifyPanel.tsx';
import { RunPanel } from './RunPanel.tsx';
import { SchedulePanel } from './SchedulePanel.tsx';
import './sites.css';

/** One site: its settings, run now with the latest run's progress, its schedule and its notices. */
export default function SiteScreen({ id }: { id: string }) {
  const site = useQuery(siteQuery(id));
  useScreen(site.data ? `Site ${site.data.name}` : 'Site');
  return (
    <>
      <p>
        <Link to="auditSites">Sites</Link>
      </p>
      {site.error && (
        <>
          <h1>Site</h1>
          <p role="alert" className="error">
            {messageOf(site.error, 'the audit service could not be reached')}
          </p>
        </>
      )}
      {!site.data && !site.error && <h1>Site</h1>}
      {site.data && <SiteView site={site.data} />}
    </>
  );
}

const LEVEL = (site: ApiSite) =>
  `WCAG ${site.config.version ?? '2.2'} ${site.config.level ?? 'AA'}${
    site.config.crawl && site.config.crawl.enabled !== false
      ? `, crawling up to ${site.config.crawl.maxPages ?? 25} pages`
      : ', this page only'
  }${site.config.deep ? ', deep audit (browser checks)' : ''}${site.config.bestPractices ? ', best-practice rules' : ''}`;

function SiteView({ site }: { site: ApiSite }) {
  const client = useQueryClient();
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: () => sitesApi.call('DELETE', `/sites/${encodeURIComponent(site.id)}`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: siteKeys.all });
      navigate('auditSites');
    },
  });
  return (
    <>
      <h1>{site.name}</h1>
      <dl className="facts site-facts">
        <dt>URL</dt>
        <dd>
          <SafeLink href={site.url} />
        </dd>
        <dt>Audits</dt>
        <dd>{LEVEL(site)}</dd>
      </dl>
      <div className="actions site-actions">
        <Link to="auditSiteEdit" params={{ id: site.id }} className="button">
          Edit site
        </Link>
        <Link to="auditRuns" search={{ url: site.url }} className="button secondary">
          All runs of this site
        </Link>
        <button type="button" className="danger" onClick={() => setDeleting(true)}>
          Delete site
        </button>
      </div>
      <RunPanel site={site} />
      <SchedulePanel site={site} />
      <NotifyPanel site={site} />
      {deleting && (
        <ConfirmDialog
          title="Delete this site?"
          confirm="Delete site"
          busy={remove.isPending}
          error={remove.error ? messageOf(remove.error) : undefined}
          onConfirm={() => remove.mutate()}
          onClose={() => setDeleting(false)}
        >
          <p>Its schedule and notifications go with it; its runs stay among the audits.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
