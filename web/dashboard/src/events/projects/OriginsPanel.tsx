import type { ApiProject, ApiProjectOrigins } from '../admin-api.ts';
import { ListSettingPanel, type ListSetting } from './ListSettingPanel.tsx';

/** The browser origins allowed to send the project's events: its own, beside the service-wide INGEST_ALLOWED_ORIGINS. */
const ORIGINS: ListSetting<'origins', ApiProjectOrigins> = {
  path: 'origins',
  field: 'origins',
  ids: { one: 'origin', many: 'origins' },
  heading: 'Allowed origins',
  help: (
    <>
      The web sites whose pages may send this project’s events from the browser, as <code>https://host</code> (with a
      port when not the usual one).
    </>
  ),
  words: {
    entry: 'Origin',
    empty: 'No origin of its own.',
    saved: (n) =>
      n === 0 ? 'The project allows no origin of its own.' : `The project allows ${n} origin${n === 1 ? '' : 's'}.`,
    edit: 'Edit allowed origins',
    add: 'Add an origin',
    save: 'Save allowed origins',
  },
  input: { inputMode: 'url', maxLength: 2000, placeholder: 'https://shop.example.com' },
  below: (o) => (
    <p className="hint">
      {o.service_origins.length === 0
        ? 'The service allows no origin for every project (INGEST_ALLOWED_ORIGINS is empty).'
        : o.service_origins.includes('*')
          ? 'The service allows every origin for every project (INGEST_ALLOWED_ORIGINS=*).'
          : `Allowed for every project by the service (INGEST_ALLOWED_ORIGINS): ${o.service_origins.join(', ')}.`}
    </p>
  ),
};

export function OriginsPanel({ project }: { project: ApiProject }) {
  return <ListSettingPanel project={project} setting={ORIGINS} />;
}
