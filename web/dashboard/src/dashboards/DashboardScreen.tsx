import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '../api/client.ts';
import type { ApiDataSource, ApiDefinition, ApiSavedQuery, ApiUser, ApiWidget } from '../api/types.ts';
import { atLeast, mayWriteSql } from '../app/roles.ts';
import { Link, navigate } from '../app/router.tsx';
import { useScreen } from '../app/useTitle.ts';
import { downloadJson } from '../app/download.ts';
import { useLook } from '../widgets/useMedia.ts';
import { WidgetView } from '../widgets/WidgetView.tsx';
import { messageOf } from '../data/errors.ts';
import { keys } from '../data/keys.ts';
import { accessQuery, dataSourcesQuery, savedQueriesQuery } from '../data/queries.ts';
import {
  dashboardQuery,
  deleteDashboard,
  exportDashboard,
  parameterOptions,
  restoreVersion,
  saveDashboard,
  type Loaded,
} from './api.ts';
import { ActiveFilters, useClickActions } from './ClickFilters.tsx';
import { normalised } from './definition.ts';
import { Grid } from './Grid.tsx';
import { compact, newWidgetId, nextPosition } from './layout.ts';
import { draftWidgetLoader, savedWidgetLoader } from './loaders.ts';
import { ParametersBar } from './ParametersBar.tsx';
import { intervalOf, queryValues, searchWithValues, valuesFromSearch } from './parameters.ts';
import { SettingsPanel } from './SettingsPanel.tsx';
import { SharePanel } from './SharePanel.tsx';
import { DownloadPanel } from './DownloadPanel.tsx';
import { STARTER_SQL } from './starter.ts';
import { VersionHistory } from './VersionHistory.tsx';
import { WidgetEditor } from './WidgetEditor.tsx';
import { useConfirm } from '../app/useConfirm.tsx';
import { NarrowMenu } from '../app/NarrowMenu.tsx';

const REFRESH = [
  { value: 0, label: 'Off' },
  { value: 5, label: 'Every 5 seconds' },
  { value: 10, label: 'Every 10 seconds' },
  { value: 30, label: 'Every 30 seconds' },
  { value: 60, label: 'Every minute' },
  { value: 300, label: 'Every 5 minutes' },
  { value: 900, label: 'Every 15 minutes' },
  { value: 3600, label: 'Every hour' },
];

interface Draft {
  title: string;
  description: string;
  tags: string[];
  definition: ApiDefinition;
  /** The version the draft was made from: a save must still match it. */
  etag: string;
}
const NONE_SOURCES: ApiDataSource[] = [];
const NONE_SAVED: ApiSavedQuery[] = [];
const onlyActive = (all: ApiDataSource[]) => all.filter((s) => s.active);
const STALE =
  'Someone else changed this dashboard since you opened it. Reload to see their version (your unsaved changes here are lost), or keep editing and copy what you need first.';
type Panel =
  | { kind: 'none' }
  | { kind: 'widget'; id: string }
  | { kind: 'settings' }
  | { kind: 'versions' }
  | { kind: 'share' }
  | { kind: 'download' };

/** One dashboard: its parameters and widget grid; editors switch to edit mode, change the grid and save it. */
export default function DashboardScreen({ me, id }: { me: ApiUser; id: number }) {
  const client = useQueryClient();
  const dashboard = useQuery(dashboardQuery(id));
  const loaded = dashboard.data;
  const [draft, setDraft] = useState<Draft>();
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [confirmFirst, confirming] = useConfirm();
  // A link or a subscription's render may fix parameters in the address (`?var-region=north`, Grafana's form).
  const [values, setValues] = useState<Record<string, string>>(() => valuesFromSearch(location.search));
  // The interval chosen here; until one is, the dashboard's saved one.
  const [refreshChoice, setRefreshChoice] = useState<number>();
  const [tick, setTick] = useState(0);
  const [status, setStatus] = useState('');
  const [announce, setAnnounce] = useState('');
  const look = useLook();
  const canEdit = atLeast(me, 'editor');
  // A restricted dashboard may be only viewed by an editor of the tenant (its access lists): the server says.
  const access = useQuery({ ...accessQuery(id), enabled: canEdit });
  const mayChange = canEdit && access.data?.mayEdit === true;
  const editing = draft !== undefined;
  const refresh = refreshChoice ?? loaded?.dashboard.definition.refreshSeconds ?? 0;
  useScreen(loaded ? loaded.dashboard.title : 'Dashboard');

  // A new widget starts on the first data source, so adding waits until the sources (and saved queries) are known.
  const activeSources = useQuery({ ...dataSourcesQuery(), enabled: editing, select: onlyActive });
  const savedQueries = useQuery({ ...savedQueriesQuery(), enabled: editing });
  const sources = activeSources.data ?? NONE_SOURCES;
  const saved = savedQueries.data ?? NONE_SAVED;
  const listsReady = !activeSources.isPending && !savedQueries.isPending;
  const listsError = editing ? (activeSources.error ?? savedQueries.error) : null;

  const enterEdit = useCallback((l: Loaded) => {
    setDraft({
      title: l.dashboard.title,
      description: l.dashboard.description ?? '',
      tags: [...l.dashboard.tags],
      // A saved layout with gaps (older, or made through the API) is edited compacted, as it is shown.
      definition: {
        ...structuredClone(l.dashboard.definition),
        widgets: compact(structuredClone(l.dashboard.definition.widgets)),
      },
      etag: l.etag,
    });
  }, []);

  // `?edit=1` (a dashboard just created) opens in edit mode once it is loaded.
  const editOnOpen = useRef(new URLSearchParams(location.search).has('edit'));
  useEffect(() => {
    if (!loaded || !editOnOpen.current) return;
    editOnOpen.current = false;
    if (canEdit) enterEdit(loaded);
  }, [loaded, canEdit, enterEdit]);

  // Auto-refresh while viewing (not while editing: the preview follows the edits), skipped while the tab is hidden.
  useEffect(() => {
    if (!refresh || editing) return;
    const timer = setInterval(() => {
      if (!document.hidden) setTick((t) => t + 1);
    }, refresh * 1000);
    return () => clearInterval(timer);
  }, [refresh, editing]);

  // Leaving the page (reload, closing the tab) with a draft asks first: the draft lives only in this page.
  useEffect(() => {
    if (!editing) return;
    const ask = (e: BeforeUnloadEvent) => e.preventDefault();
    addEventListener('beforeunload', ask);
    return () => removeEventListener('beforeunload', ask);
  }, [editing]);

  const definition = draft?.definition ?? loaded?.dashboard.definition;
  const parameters = definition?.parameters ?? [];
  const valuesRef = useRef(values);
  valuesRef.current = values;
  const current = useCallback(() => queryValues(parameters, valuesRef.current), [parameters]);
  const valuesKey = JSON.stringify(values);
  // A span selected on a time chart becomes the first time range parameter's absolute range (Grafana's zoom).
  const timeRange = parameters.find((p) => p.type === 'time_range')?.name;
  const zoom = useMemo(
    () =>
      timeRange === undefined
        ? undefined
        : (from: number, to: number) =>
            // To the minute, as From and To show it, so applying them unchanged keeps the same range.
            setValues((v) => ({
              ...v,
              [timeRange]: intervalOf(Math.floor(from / 60_000) * 60_000, Math.ceil(to / 60_000) * 60_000),
            })),
    [timeRange],
  );
  // A click on a widget's value sets the parameter its click behaviour names (cross-filtering), or opens its link.
  const clickOf = useClickActions(parameters, setValues, setStatus);
  const clearFilter = useCallback(
    (name: string) => {
      const p = parameters.find((x) => x.name === name);
      setValues(({ [name]: _cleared, ...rest }) => rest);
      setStatus(`Filter cleared: ${p?.label ?? name}.`);
    },
    [parameters],
  );
  // The values are carried in the address (`var-<name>`), so a copied link or a reload shows the same range.
  useEffect(() => {
    const search = searchWithValues(location.search, values);
    if (search !== location.search) history.replaceState(history.state, '', `${location.pathname}${search}`);
  }, [values]);

  const setDefinition = (f: (d: ApiDefinition) => ApiDefinition) =>
    setDraft((d) => (d ? { ...d, definition: f(d.definition) } : d));
  const updateWidget = (w: ApiWidget) =>
    setDefinition((d) => ({ ...d, widgets: d.widgets.map((x) => (x.id === w.id ? w : x)) }));

  const addWidget = () => {
    if (!definition) return;
    const wid = newWidgetId(definition.widgets);
    const source = sources.find((s) => mayWriteSql(me, s));
    const w: ApiWidget = source
      ? {
          id: wid,
          type: 'bar',
          title: `Widget ${wid.slice(1)}`,
          position: nextPosition(definition.widgets, definition.layout.columns),
          dataSourceId: source.id,
          query: STARTER_SQL,
        }
      : {
          id: wid,
          type: 'text',
          title: `Widget ${wid.slice(1)}`,
          position: nextPosition(definition.widgets, definition.layout.columns, 6, 3),
          options: { markdown: 'Text' },
        };
    setDefinition((d) => ({ ...d, widgets: compact([...d.widgets, w]) }));
    setPanel({ kind: 'widget', id: wid });
    setAnnounce(`Added ${w.title}. Configure it below the toolbar.`);
  };
  const removeWidget = (wid: string) => {
    const w = definition?.widgets.find((x) => x.id === wid);
    setDefinition((d) => ({ ...d, widgets: compact(d.widgets.filter((x) => x.id !== wid)) }));
    if (panel.kind === 'widget' && panel.id === wid) setPanel({ kind: 'none' });
    setAnnounce(`Removed ${w?.title ?? wid}.`);
  };

  // What a save or a restore answers is the dashboard now: it goes into the cache, and its history and the lists change.
  const changed = (l: Loaded) => {
    client.setQueryData(keys.dashboards.one(id), l);
    void client.invalidateQueries({ queryKey: keys.dashboards.versions(id) });
    void client.invalidateQueries({ queryKey: keys.dashboards.lists });
    setDraft(undefined);
    setTick((t) => t + 1);
  };
  // A save is sent with the ETag the draft was made from, so a version saved meanwhile by someone else is not overwritten.
  const save = useMutation({
    mutationFn: (d: Draft) => {
      const definitionToSave = { ...normalised(d.definition), ...(refresh ? { refreshSeconds: refresh } : {}) };
      if (!refresh) delete definitionToSave.refreshSeconds;
      return saveDashboard(id, d.etag, {
        title: d.title.trim(),
        description: d.description.trim() ? d.description : null,
        tags: d.tags,
        definition: definitionToSave,
      });
    },
    onMutate: () => setStatus('Saving…'),
    onError: () => setStatus(''),
    onSuccess: (l) => {
      changed(l);
      setRefreshChoice(undefined);
      setPanel({ kind: 'none' });
      setStatus(`Saved as version ${l.dashboard.version}.`);
      history.replaceState(null, '', `${location.pathname}${searchWithValues('', valuesRef.current)}`);
    },
  });
  const restore = useMutation({
    mutationFn: (version: number) => restoreVersion(id, version, loaded?.etag ?? ''),
    onSuccess: (l, version) => {
      changed(l);
      setStatus(`Restored version ${version} as version ${l.dashboard.version}.`);
    },
  });
  const exportFile = useMutation({
    mutationFn: () => exportDashboard(id),
    onSuccess: ({ bundle, filename }) => {
      downloadJson(filename, bundle);
      setStatus(`Exported as ${filename}: import it on the Dashboards page of another tenant or installation.`);
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteDashboard(id, loaded?.etag ?? ''),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keys.dashboards.lists });
      navigate('dashboards');
    },
  });
  // The alert says why the last action was refused; a save or restore refused because someone else saved first is
  // said apart, with the way out, until the person picks one.
  const last = [save, restore, exportFile, remove].reduce((a, b) => (b.submittedAt > a.submittedAt ? b : a));
  const stale = last.error instanceof ApiError && last.error.code === 'PRECONDITION_FAILED';
  const error = last.error && !stale ? messageOf(last.error) : '';

  const render = useMemo(
    () => (w: ApiWidget) => {
      const load = editing ? draftWidgetLoader(w, saved, current) : savedWidgetLoader(id, w, current);
      const key = `${tick}|${valuesKey}|${editing ? JSON.stringify([w.query, w.dataSourceId, w.savedQueryId, saved.length]) : 'saved'}`;
      return (
        <WidgetView
          widget={w}
          load={load}
          scope={`dashboard:${id}`}
          reloadKey={key}
          look={look}
          delayMs={editing ? 400 : 0}
          onZoom={zoom}
          // While editing, a click would set values or leave the draft: the widgets only preview.
          click={editing ? undefined : clickOf(w)}
        />
      );
    },
    [editing, saved, tick, valuesKey, id, look, current, zoom, clickOf],
  );

  // A failed read again keeps the dashboard on screen, unless it is gone (deleted here, in another tab or by someone).
  const gone = dashboard.error instanceof ApiError && dashboard.error.status === 404;
  if (dashboard.error && (!loaded || gone))
    return (
      <>
        <h1>Dashboard</h1>
        <p role="alert" className="error">
          {gone ? 'This dashboard does not exist, or was deleted.' : messageOf(dashboard.error)}
        </p>
        <p>
          <Link to="dashboards">All dashboards</Link>
        </p>
      </>
    );
  if (!loaded || !definition) return <p role="status">Loading the dashboard…</p>;
  const d = loaded.dashboard;
  const configuring = panel.kind === 'widget' ? definition.widgets.find((w) => w.id === panel.id) : undefined;
  const refreshField = (
    <div className="field">
      <label htmlFor="refresh">Auto-refresh</label>
      <select id="refresh" value={refresh} onChange={(e) => setRefreshChoice(Number(e.target.value))}>
        {(REFRESH.some((r) => r.value === refresh)
          ? REFRESH
          : [...REFRESH, { value: refresh, label: `Every ${refresh} seconds` }].sort((a, b) => a.value - b.value)
        ).map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <>
      <p className="crumbs">
        <Link to="dashboards">All dashboards</Link>
      </p>
      <h1>{editing ? `Editing: ${draft.title || d.title}` : d.title}</h1>
      {!editing && d.description && <p className="description">{d.description}</p>}
      {/* On a phone the primary actions stay in view and the rest wait behind More (NarrowMenu): the eight controls
          took four rows of a 320 px screen. Viewing, those are the interval, Refresh and Edit; editing, Add widget,
          Save and Cancel, the interval (saved with the dashboard, not run while editing) joining the settings. */}
      <div className="toolbar dashboard-toolbar">
        {!editing && (
          <>
            {refreshField}
            <button
              type="button"
              className="secondary"
              aria-label="Refresh now"
              onClick={() => {
                setTick((t) => t + 1);
                setStatus('Refreshed.');
              }}
            >
              Refresh
            </button>
            {mayChange && (
              <button
                type="button"
                aria-label="Edit dashboard"
                onClick={() => {
                  setStatus('');
                  if (stale) last.reset();
                  enterEdit(loaded);
                }}
              >
                Edit
              </button>
            )}
          </>
        )}
        {editing && (
          <>
            <button type="button" onClick={addWidget} disabled={!listsReady}>
              Add widget
            </button>
            <button type="button" onClick={() => draft && save.mutate(draft)}>
              Save
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setDraft(undefined);
                setPanel({ kind: 'none' });
                if (stale) last.reset();
                setStatus('Changes discarded.');
              }}
            >
              Cancel
            </button>
          </>
        )}
        <NarrowMenu id="dashboard-more" label="More" className="toolbar-more">
          {editing && (
            <>
              {refreshField}
              <button
                type="button"
                className="secondary"
                onClick={() => setPanel(panel.kind === 'settings' ? { kind: 'none' } : { kind: 'settings' })}
                aria-expanded={panel.kind === 'settings'}
              >
                Settings
              </button>
            </>
          )}
          <button
            type="button"
            id="versions-toggle"
            className="secondary"
            aria-expanded={panel.kind === 'versions'}
            onClick={() => setPanel(panel.kind === 'versions' ? { kind: 'none' } : { kind: 'versions' })}
          >
            Version history
          </button>
          {!editing && mayChange && (
            <button
              type="button"
              className="secondary"
              aria-expanded={panel.kind === 'share'}
              onClick={() => setPanel(panel.kind === 'share' ? { kind: 'none' } : { kind: 'share' })}
            >
              Share
            </button>
          )}
          {!editing && canEdit && (
            <Link to="dashboardSubscriptions" params={{ id }} className="button secondary">
              Subscriptions
            </Link>
          )}
          {!editing && (
            <button type="button" className="secondary" onClick={() => exportFile.mutate()}>
              Export
            </button>
          )}
          {!editing && (
            <button
              type="button"
              className="secondary"
              aria-expanded={panel.kind === 'download'}
              onClick={() => setPanel(panel.kind === 'download' ? { kind: 'none' } : { kind: 'download' })}
            >
              Save as PNG or PDF
            </button>
          )}
          {!editing && mayChange && (
            <button
              type="button"
              className="danger"
              onClick={async () => {
                const yes = await confirmFirst({
                  title: `Delete the dashboard “${d.title}”?`,
                  body: 'Its history, subscriptions, public link and the alert rules watching its widgets go with it.',
                  confirm: 'Delete dashboard',
                });
                if (yes) remove.mutate();
              }}
            >
              Delete dashboard
            </button>
          )}
        </NarrowMenu>
      </div>
      <p role="status" className="status">
        {status}
      </p>
      <div role="alert" className="error">
        {error || (listsError ? messageOf(listsError, 'the data sources and saved queries could not be loaded') : '')}
      </div>
      {stale && (
        <div role="alert" className="stale">
          <p>{STALE}</p>
          <div className="actions">
            <button
              type="button"
              onClick={() => {
                last.reset();
                setStatus('');
                void dashboard.refetch().then((r) => {
                  if (!r.isSuccess) return;
                  setDraft(undefined);
                  setRefreshChoice(undefined);
                  setTick((t) => t + 1);
                  setStatus('Reloaded the latest version.');
                });
              }}
            >
              Reload the dashboard
            </button>
            <button type="button" className="secondary" onClick={() => last.reset()}>
              Keep editing
            </button>
          </div>
        </div>
      )}
      <p className="visually-hidden" aria-live="polite">
        {announce}
      </p>
      {editing && (
        <p id="grid-keys" className="hint">
          Drag a widget by its title bar and resize it by its corner; or focus a widget and use the arrow keys to move
          it, Shift and the arrow keys to resize it.
        </p>
      )}
      {panel.kind === 'settings' && draft && (
        <SettingsPanel
          title={draft.title}
          description={draft.description}
          tags={draft.tags}
          onTags={(tags) => setDraft({ ...draft, tags })}
          parameters={parameters}
          onTitle={(title) => setDraft({ ...draft, title })}
          onDescription={(description) => setDraft({ ...draft, description })}
          me={me}
          sources={sources}
          onParameters={(p) =>
            setDefinition(({ parameters: _old, ...x }) => (p.length > 0 ? { ...x, parameters: p } : x))
          }
        />
      )}
      {configuring && (
        <WidgetEditor
          me={me}
          widget={configuring}
          sources={sources}
          saved={saved}
          parameters={parameters}
          onChange={updateWidget}
          onDone={() => {
            setPanel({ kind: 'none' });
            document.querySelector<HTMLElement>(`[data-widget="${configuring.id}"]`)?.focus();
          }}
        />
      )}
      {panel.kind === 'share' && !editing && <SharePanel me={me} id={id} title={d.title} />}
      {panel.kind === 'download' && !editing && <DownloadPanel id={id} parameters={parameters} values={values} />}
      {panel.kind === 'versions' && (
        <VersionHistory
          id={id}
          current={d.version}
          canRestore={mayChange}
          onRestore={async (v) => {
            const yes = await confirmFirst({
              title: `Restore version ${v}?`,
              body: 'It becomes a new version; nothing is lost.',
              confirm: 'Restore',
            });
            if (yes) restore.mutate(v);
          }}
          onClose={() => {
            setPanel({ kind: 'none' });
            document.getElementById('versions-toggle')?.focus();
          }}
        />
      )}
      <ParametersBar
        parameters={parameters}
        values={values}
        onChange={setValues}
        options={editing ? undefined : (name, v) => parameterOptions(id, name, queryValues(parameters, v))}
      />
      {!editing && (
        <ActiveFilters parameters={parameters} widgets={definition.widgets} values={values} onClear={clearFilter} />
      )}
      {definition.widgets.length === 0 ? (
        <p>{editing ? 'No widgets yet: add one.' : 'This dashboard has no widgets yet.'}</p>
      ) : (
        <Grid
          widgets={definition.widgets}
          columns={definition.layout.columns}
          rowHeight={definition.layout.rowHeight}
          editing={editing}
          render={render}
          onAnnounce={setAnnounce}
          onConfigure={(wid) => setPanel({ kind: 'widget', id: wid })}
          onRemove={removeWidget}
          onLayout={(widgets) => setDefinition((x) => ({ ...x, widgets }))}
        />
      )}
      {confirming}
    </>
  );
}
