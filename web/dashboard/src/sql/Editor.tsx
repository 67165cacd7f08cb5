import { useEffect, useRef } from 'react';
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Compartment, Prec } from '@codemirror/state';
import { MySQL, PostgreSQL, sql } from '@codemirror/lang-sql';
import { editorLook, prefersDark } from './editorLook.ts';

const language = (dialect: 'postgres' | 'mysql', tables: Record<string, string[]>) =>
  sql({ dialect: dialect === 'mysql' ? MySQL : PostgreSQL, schema: tables, upperCaseKeywords: true });

/** CodeMirror 6 with SQL highlighting and completion of the source's tables and columns; Ctrl/Cmd+Enter runs. */
export function Editor({
  value,
  onChange,
  onRun,
  dialect,
  tables,
  label,
}: {
  value: string;
  onChange: (v: string) => void;
  onRun: () => void;
  dialect: 'postgres' | 'mysql';
  tables: Record<string, string[]>;
  /** The accessible name: a label outside the shadow root cannot be referenced from inside it. */
  label: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(undefined);
  const sqlSupport = useRef(new Compartment());
  const look = useRef(new Compartment());
  const latest = useRef({ onChange, onRun });
  latest.current = { onChange, onRun };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is built once and owns its text from then on (`value` is only the first text; recreating it would lose the cursor and focus); a new dialect or tables is swapped in by the effect below, and `label` is fixed by the screen
  useEffect(() => {
    // Inside a shadow root CodeMirror's styles become constructed style sheets, which the page's CSP
    // (style-src 'self', no inline <style>) allows; in the document it would add a <style> element.
    const shadow = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: 'open' });
    view.current = new EditorView({
      doc: value,
      root: shadow,
      parent: shadow,
      extensions: [
        Prec.highest(
          keymap.of([
            {
              key: 'Mod-Enter',
              run: () => {
                latest.current.onRun();
                return true;
              },
            },
          ]),
        ),
        basicSetup,
        sqlSupport.current.of(language(dialect, tables)),
        // Non-breaking spaces (typed in some browsers, pasted from web pages) are words to the database.
        EditorView.updateListener.of((u) => {
          if (u.docChanged) latest.current.onChange(u.state.doc.toString().replace(/\u00a0/g, ' '));
        }),
        // Long lines wrap: a narrow screen (320 px) keeps the whole statement in view, without scrolling sideways.
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true', role: 'textbox' }),
        EditorView.theme({ '&': { minHeight: '8rem' }, '.cm-gutters': { minHeight: '8rem' } }),
        look.current.of(editorLook(prefersDark())),
      ],
    });
    // The colours follow the system's scheme as the page's do, also when it changes while the editor is open.
    const scheme = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined;
    const onScheme = (e: MediaQueryListEvent) =>
      view.current?.dispatch({ effects: look.current.reconfigure(editorLook(e.matches)) });
    scheme?.addEventListener('change', onScheme);
    return () => {
      scheme?.removeEventListener('change', onScheme);
      view.current?.destroy();
    };
  }, []);

  // A new source's dialect and tables are swapped in place, so someone typing keeps focus and text.
  useEffect(() => {
    view.current?.dispatch({ effects: sqlSupport.current.reconfigure(language(dialect, tables)) });
  }, [dialect, tables]);

  return <div ref={host} className="editor" />;
}
