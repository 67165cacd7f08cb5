import { lazy, Suspense } from 'react';
import { useSourceTables } from '../sql/useSourceTables.ts';
import '../sql/workflow.css';

// CodeMirror comes with the first widget edited, not with every dashboard a viewer opens.
const Editor = lazy(() => import('../sql/Editor.tsx').then((m) => ({ default: m.Editor })));

/**
 * A widget's SQL in the SQL screen's editor: highlighting and completion of the source's tables and columns. The
 * editor owns its text once made, so it is keyed by the widget (another widget gets its own). A locked widget's SQL
 * (a source the person may not write SQL on) is shown as text.
 */
export function WidgetSql({
  widgetId,
  query,
  sourceId,
  dialect,
  locked,
  onChange,
  label = 'SQL',
}: {
  widgetId: string;
  query: string;
  sourceId: number | undefined;
  dialect: 'postgres' | 'mysql';
  locked: boolean;
  onChange: (sql: string) => void;
  /** The editor's accessible name. */
  label?: string;
}) {
  const tables = useSourceTables(locked ? undefined : sourceId);
  if (locked)
    return (
      <section className="locked-sql" tabIndex={0} aria-label="SQL (read only)">
        <pre className="code">{query}</pre>
      </section>
    );
  return (
    <Suspense fallback={<p className="hint">Loading the SQL editor…</p>}>
      <Editor
        key={widgetId}
        value={query}
        onChange={onChange}
        onRun={() => {}}
        dialect={dialect}
        tables={tables}
        label={label}
      />
    </Suspense>
  );
}
