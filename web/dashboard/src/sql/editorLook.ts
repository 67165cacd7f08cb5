import { EditorView } from '@codemirror/view';
import type { Extension } from '@codemirror/state';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';

/**
 * The editor's colours for the page's colour scheme. CodeMirror's own highlighting (basicSetup's fallback) is made for
 * light pages: its dark purples and greens fall under 3:1 on the dark background. The dark look takes the app's dark
 * palette, each colour at least 7:1 on the background and 6:1 on the active line.
 */
export function editorLook(dark: boolean): Extension {
  const focus = EditorView.theme({ '&.cm-focused': { outline: '3px solid var(--focus)', outlineOffset: '2px' } });
  return dark ? [focus, DARK_THEME, syntaxHighlighting(DARK_HIGHLIGHT)] : focus;
}

export const prefersDark = () => typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;

const DARK_THEME = EditorView.theme(
  {
    '&': { color: '#e8eaed', backgroundColor: '#121417' },
    '.cm-content': { caretColor: '#e8eaed' },
    '.cm-cursor, .cm-dropCursor': { borderLeftColor: '#e8eaed' },
    '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection':
      { backgroundColor: '#304057' },
    '.cm-activeLine': { backgroundColor: '#1b1f24' },
    '.cm-gutters': { backgroundColor: '#1b1f24', color: '#b8bec6', borderRight: '1px solid #4d5560' },
    '.cm-activeLineGutter': { backgroundColor: '#22262b', color: '#e8eaed' },
    '.cm-tooltip': { backgroundColor: '#1b1f24', color: '#e8eaed', border: '1px solid #4d5560' },
    '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: '#304057', color: '#e8eaed' },
    '.cm-completionDetail': { color: '#b8bec6' },
    '.cm-matchingBracket, .cm-nonmatchingBracket': { backgroundColor: '#304057', color: '#e8eaed' },
  },
  { dark: true },
);

const DARK_HIGHLIGHT = HighlightStyle.define([
  { tag: tags.keyword, color: '#d7aefb' },
  { tag: [tags.typeName, tags.namespace, tags.className], color: '#81c995' },
  { tag: [tags.string, tags.special(tags.string), tags.regexp, tags.escape], color: '#f28b82' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom, tags.literal], color: '#fdd663' },
  { tag: [tags.comment, tags.meta], color: '#b8bec6', fontStyle: 'italic' },
  {
    tag: [tags.standard(tags.name), tags.function(tags.variableName), tags.special(tags.variableName), tags.macroName],
    color: '#8ab4f8',
  },
  { tag: [tags.definition(tags.variableName), tags.labelName, tags.special(tags.name)], color: '#78d9ec' },
  { tag: tags.invalid, color: '#f28b82', textDecoration: 'underline' },
]);
