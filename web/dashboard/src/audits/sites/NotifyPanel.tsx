import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { SecretOnce } from '../../app/SecretOnce.tsx';
import { messageOf } from '../../data/errors.ts';
import {
  notifyQuery,
  sitesApi,
  siteKeys,
  type ApiNoticeTest,
  type ApiNotify,
  type ApiNotifyBody,
  type ApiSite,
} from './api.ts';
import { FieldError } from './FieldError.tsx';
import { NoticesList } from './NoticesList.tsx';
import { fieldOf, invalidProps } from './field-errors.ts';

/** Where the site's notices go and what is worth one; loaded once its settings are read. */
export function NotifyPanel({ site }: { site: ApiSite }) {
  const heading = useId();
  const settings = useQuery(notifyQuery(site.id));
  return (
    <section aria-labelledby={heading} className="site-panel">
      <h2 id={heading}>Notifications</h2>
      <p className="hint">
        When a run scores lower than the one before, or finds serious or critical failures the one before did not.
      </p>
      {settings.error && (
        <p role="alert" className="error">
          {messageOf(settings.error, 'the audit service could not be reached')}
        </p>
      )}
      {settings.data && <NotifyForm site={site} settings={settings.data} idBase={heading} />}
      <NoticesList siteId={site.id} />
    </section>
  );
}

type Field = 'emails' | 'webhookUrl';
const FIELDS: Record<Field, RegExp> = { emails: /emails/, webhookUrl: /webhookUrl/ };

function NotifyForm({ site, settings, idBase }: { site: ApiSite; settings: ApiNotify; idBase: string }) {
  const client = useQueryClient();
  const [emails, setEmails] = useState(settings.emails.join('\n'));
  const [webhookUrl, setWebhookUrl] = useState(settings.webhookUrl ?? '');
  const [onScoreDrop, setOnScoreDrop] = useState(settings.onScoreDrop);
  const [onNewFailures, setOnNewFailures] = useState(settings.onNewFailures);
  const [newSecret, setNewSecret] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field | 'form', string>>>({});
  const [saved, setSaved] = useState('');
  const [secret, setSecret] = useState<string>();
  const path = `/sites/${encodeURIComponent(site.id)}/notifications`;
  const id = (f: Field) => `${idBase}-${f}`;

  const save = useMutation({
    mutationFn: (body: ApiNotifyBody) => sitesApi.call<ApiNotify>('PUT', path, { body }),
    onSuccess: async (answer) => {
      setErrors({});
      setSecret(answer.webhookSecret);
      setNewSecret(false);
      setSaved('Notification settings saved.');
      await client.invalidateQueries({ queryKey: siteKeys.notify(site.id) });
    },
    onError: (err) => {
      setSaved('');
      const { field, message } = fieldOf(err, FIELDS);
      setErrors({ [field]: message });
      if (field !== 'form') requestAnimationFrame(() => document.getElementById(id(field))?.focus());
    },
  });
  const test = useMutation({
    mutationFn: () => sitesApi.call<ApiNoticeTest>('POST', `${path}/test`),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const list = emails
      .split(/[\s,;]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = list.find((a) => !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(a));
    if (bad) {
      setErrors({ emails: `"${bad}" is not an email address.` });
      return document.getElementById(id('emails'))?.focus();
    }
    save.mutate({
      emails: list,
      webhookUrl: webhookUrl.trim() || null,
      onScoreDrop,
      onNewFailures,
      ...(newSecret ? { newSecret } : {}),
    });
  };
  return (
    <>
      <form className="form" onSubmit={submit} noValidate>
        <label htmlFor={id('emails')}>Email addresses</label>
        <textarea
          id={id('emails')}
          rows={3}
          value={emails}
          onChange={(e) => setEmails(e.target.value)}
          {...invalidProps(id('emails'), errors.emails, `${id('emails')}-hint`)}
        />
        <p id={`${id('emails')}-hint`} className="hint">
          One a line, at most 10.
        </p>
        <FieldError id={id('emails')} error={errors.emails} />
        <label htmlFor={id('webhookUrl')}>Webhook URL</label>
        <input
          id={id('webhookUrl')}
          type="url"
          inputMode="url"
          autoComplete="off"
          value={webhookUrl}
          onChange={(e) => setWebhookUrl(e.target.value)}
          {...invalidProps(id('webhookUrl'), errors.webhookUrl, `${id('webhookUrl')}-hint`)}
        />
        <p id={`${id('webhookUrl')}-hint`} className="hint">
          Each notice is POSTed as JSON, signed per Standard Webhooks. Leave empty for none.
        </p>
        <FieldError id={id('webhookUrl')} error={errors.webhookUrl} />
        {settings.hasWebhookSecret && webhookUrl.trim() !== '' && (
          <label className="check">
            <input type="checkbox" checked={newSecret} onChange={(e) => setNewSecret(e.target.checked)} /> Make a new
            signing secret (the old one stops working)
          </label>
        )}
        <fieldset>
          <legend>Notify when a run</legend>
          <label className="check">
            <input type="checkbox" checked={onScoreDrop} onChange={(e) => setOnScoreDrop(e.target.checked)} /> scores
            lower than the one before
          </label>
          <label className="check">
            <input type="checkbox" checked={onNewFailures} onChange={(e) => setOnNewFailures(e.target.checked)} /> finds
            new serious or critical failures
          </label>
        </fieldset>
        {errors.form && (
          <p role="alert" className="error">
            {errors.form}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={save.isPending}>
            Save notifications
          </button>
          <button type="button" className="secondary" disabled={test.isPending} onClick={() => test.mutate()}>
            Send a test
          </button>
        </div>
        <p role="status" className="status">
          {saved}
        </p>
      </form>
      {secret && (
        <SecretOnce
          title="The webhook's signing secret"
          label="the webhook's signing secret"
          value={secret}
          note="Shown this once: keep it where your receiver checks signatures. It is stored encrypted and never shown again."
        />
      )}
      <div role="status" className="status">
        {test.isPending && 'Sending a test…'}
        {test.error && messageOf(test.error, 'the audit service could not be reached')}
        {test.data && (
          <>
            <p>Test sent:</p>
            <ul className="test-results">
              {test.data.results.map((r) => (
                <li key={`${r.channel}-${r.target}`}>
                  {r.channel === 'email' ? 'Mail to' : 'Webhook'} {r.target}:{' '}
                  {r.delivered ? 'delivered' : `not delivered (${r.error})`}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </>
  );
}
