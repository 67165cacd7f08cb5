import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { navigate } from '../../app/router.tsx';
import { sitesApi, siteKeys, type ApiSite, type ApiSiteBody } from './api.ts';
import { FieldError } from './FieldError.tsx';
import { fieldOf, invalidProps } from './field-errors.ts';

type Field = 'name' | 'url' | 'level' | 'version' | 'maxPages' | 'depth';
const FIELDS: Record<Field, RegExp> = {
  name: /\bname\b/,
  url: /^(body\/)?url\b/,
  level: /level/,
  version: /version/,
  maxPages: /maxPages/,
  depth: /depth/,
};

/**
 * Add or edit a site: its name, URL and audit settings (level, WCAG version, crawling and its page limit and depth, the
 * deep audit's browser checks, axe's best-practice rules). Settings the form does not show (ignore rules, a session,
 * LLM assistance) are kept as they were. A refusal is shown next to the field it is about, the field marked invalid, and the focus moved to it.
 */
export function SiteForm({ site }: { site?: ApiSite }) {
  const client = useQueryClient();
  const crawl = site?.config.crawl;
  const [name, setName] = useState(site?.name ?? '');
  const [url, setUrl] = useState(site?.url ?? '');
  const [level, setLevel] = useState<string>((site?.config.level as string | undefined) ?? 'AA');
  const [version, setVersion] = useState<string>(String(site?.config.version ?? '2.2'));
  const [crawling, setCrawling] = useState(crawl !== undefined && crawl.enabled !== false);
  const [maxPages, setMaxPages] = useState(String(crawl?.maxPages ?? 25));
  const [depth, setDepth] = useState(String(crawl?.depth ?? 2));
  const [deep, setDeep] = useState(site?.config.deep === true);
  const [bestPractices, setBestPractices] = useState(site?.config.bestPractices === true);
  const [errors, setErrors] = useState<Partial<Record<Field | 'form', string>>>({});

  const save = useMutation({
    mutationFn: (body: ApiSiteBody) =>
      site
        ? sitesApi.call<ApiSite>('PUT', `/sites/${encodeURIComponent(site.id)}`, { body })
        : sitesApi.call<ApiSite>('POST', '/sites', { body }),
    onSuccess: async (saved) => {
      await client.invalidateQueries({ queryKey: siteKeys.all });
      navigate('auditSite', { id: saved.id });
    },
    onError: (err) => {
      const { field, message } = fieldOf(err, FIELDS);
      setErrors({ [field]: message });
      focusField(field);
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found: Partial<Record<Field, string>> = {};
    if (!name.trim()) found.name = 'Give the site a name.';
    const parsed = URL.parse(url.trim());
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      found.url = 'Enter the full address of a web page, starting with https:// or http://.';
    const pages = Number(maxPages);
    if (crawling && !(Number.isInteger(pages) && pages >= 1))
      found.maxPages = 'The page limit is a whole number, 1 or more.';
    const hops = Number(depth);
    if (crawling && !(Number.isInteger(hops) && hops >= 0)) found.depth = 'The depth is a whole number, 0 or more.';
    setErrors(found);
    const first = Object.keys(found)[0] as Field | undefined;
    if (first) return focusField(first);
    save.mutate({
      name: name.trim(),
      url: url.trim(),
      config: {
        ...site?.config,
        level: level as 'A' | 'AA' | 'AAA',
        version: version as '2.0' | '2.1' | '2.2',
        crawl: crawling ? { enabled: true, maxPages: pages, depth: hops } : { enabled: false },
        deep,
        bestPractices,
      },
    });
  };

  return (
    <form className="form" onSubmit={submit} noValidate>
      <label htmlFor="site-name">Name</label>
      <input
        id="site-name"
        maxLength={200}
        autoComplete="off"
        value={name}
        onChange={(e) => setName(e.target.value)}
        {...invalidProps('site-name', errors.name)}
      />
      <FieldError id="site-name" error={errors.name} />
      <label htmlFor="site-url">URL</label>
      <input
        id="site-url"
        type="url"
        inputMode="url"
        maxLength={2048}
        autoComplete="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        {...invalidProps('site-url', errors.url, 'site-url-hint')}
      />
      <p id="site-url-hint" className="hint">
        The page audits start from, e.g. https://www.example.com/.
      </p>
      <FieldError id="site-url" error={errors.url} />
      <label htmlFor="site-level">Conformance level</label>
      <select
        id="site-level"
        value={level}
        onChange={(e) => setLevel(e.target.value)}
        {...invalidProps('site-level', errors.level)}
      >
        <option value="A">A</option>
        <option value="AA">AA</option>
        <option value="AAA">AAA</option>
      </select>
      <FieldError id="site-level" error={errors.level} />
      <label htmlFor="site-version">WCAG version</label>
      <select
        id="site-version"
        value={version}
        onChange={(e) => setVersion(e.target.value)}
        {...invalidProps('site-version', errors.version)}
      >
        <option value="2.2">2.2</option>
        <option value="2.1">2.1</option>
        <option value="2.0">2.0</option>
      </select>
      <FieldError id="site-version" error={errors.version} />
      <label className="check">
        <input type="checkbox" checked={crawling} onChange={(e) => setCrawling(e.target.checked)} /> Crawl the site:
        follow its links and sitemap from the URL
      </label>
      {crawling && (
        <>
          <label htmlFor="site-pages">Page limit</label>
          <input
            id="site-pages"
            type="number"
            inputMode="numeric"
            min={1}
            value={maxPages}
            onChange={(e) => setMaxPages(e.target.value)}
            {...invalidProps('site-pages', errors.maxPages)}
          />
          <FieldError id="site-pages" error={errors.maxPages} />
          <label htmlFor="site-depth">Link depth</label>
          <input
            id="site-depth"
            type="number"
            inputMode="numeric"
            min={0}
            value={depth}
            onChange={(e) => setDepth(e.target.value)}
            {...invalidProps('site-depth', errors.depth, 'site-depth-hint')}
          />
          <p id="site-depth-hint" className="hint">
            Link hops followed from the URL; 0 audits the URL and its sitemap's pages.
          </p>
          <FieldError id="site-depth" error={errors.depth} />
        </>
      )}
      <label className="check">
        <input
          type="checkbox"
          checked={deep}
          onChange={(e) => setDeep(e.target.checked)}
          aria-describedby="site-deep-hint"
        />{' '}
        Deep audit (browser checks)
      </label>
      <p id="site-deep-hint" className="hint">
        Also walks each page with the keyboard, checks that focus shows, and tries 320 px and larger text: slower, and
        failing elements get a screenshot.
      </p>
      <label className="check">
        <input
          type="checkbox"
          checked={bestPractices}
          onChange={(e) => setBestPractices(e.target.checked)}
          aria-describedby="site-best-hint"
        />{' '}
        Best-practice rules
      </label>
      <p id="site-best-hint" className="hint">
        axe's rules beyond WCAG (landmarks, heading order, …), reported apart: they never change the score.
      </p>
      {errors.form && (
        <p role="alert" className="error">
          {errors.form}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          {site ? 'Save site' : 'Add site'}
        </button>
      </div>
    </form>
  );
}

const FIELD_IDS: Record<Field | 'form', string> = {
  name: 'site-name',
  url: 'site-url',
  level: 'site-level',
  version: 'site-version',
  maxPages: 'site-pages',
  depth: 'site-depth',
  form: 'site-name',
};

/** The first field in error takes the focus, so its error is read out with it. */
function focusField(field: Field | 'form'): void {
  requestAnimationFrame(() => document.getElementById(FIELD_IDS[field])?.focus());
}
