import { Type, type Static } from 'typebox';
import { validation } from '../errors.ts';

/**
 * What clicking a value of a widget does (Metabase's click behaviour, Grafana's data links): it sets one of the
 * dashboard's parameters to the clicked value (cross-filtering: the other widgets run again with it), or opens a link
 * built from `link` with the value in place of `{value}`, URL-encoded (drill-through). The value is the clicked row's
 * `column`, else the chart's category column (a table's first column).
 */
export const Click = Type.Object(
  {
    setParameter: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 60,
        description: 'the name of a text, choice or query parameter of the dashboard, set to the clicked value',
      }),
    ),
    column: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[^\\u0000]*$',
        description:
          "the column whose value is taken from the clicked row; absent: the chart's category column, a table's first",
      }),
    ),
    link: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        pattern: '^[^\\u0000]*$',
        description:
          'a URL template opened on a click: an http(s) URL or a path of the console (/…), with {value} where the clicked value goes, URL-encoded',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ClickValue = Static<typeof Click>;

/** The placeholder a link template holds, replaced by the clicked value, URL-encoded. */
export const VALUE = '{value}';

/**
 * Why a link template cannot be a drill-through link, or undefined when it can. The text before the first `{value}`
 * must fix where the link goes: a whole http(s) origin followed by `/`, `?` or `#`, or a path of the console that is
 * not `//host` (another origin); a value can then only change the path, query or fragment, never the scheme or host.
 */
export function linkProblem(template: string): string | undefined {
  const at = template.indexOf(VALUE);
  if (at < 0) return `it must hold ${VALUE}, where the clicked value goes`;
  const fixed = template.slice(0, at);
  if (/^\/(?![/\\])/.test(fixed)) return undefined;
  if (fixed.startsWith('/')) return 'a path of the console starts with one /, not // or /\\';
  const head = /^https?:\/\/[^/?#\\\s]+[/?#]/i.exec(fixed);
  if (!head) return `only http(s) addresses and paths of the console, with the whole host before ${VALUE}`;
  const parsed = URL.parse(template.replaceAll(VALUE, 'x'));
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return 'not a valid http(s) address';
  return undefined;
}

/** The parameter types a click may set: a time range takes a range, not a clicked value. */
const SETTABLE = new Set(['text', 'choice', 'query']);

/** A widget's click behaviour agrees with the dashboard: one action, on a parameter a value can be, or a safe link. */
export function checkClick(
  click: ClickValue,
  at: string,
  widgetType: string,
  parameters: readonly { name: string; type: string }[],
): void {
  if ((click.setParameter === undefined) === (click.link === undefined))
    throw validation(`${at}: give setParameter or link, one of them`);
  if (widgetType === 'text') throw validation(`${at}: a text widget has no values to click`);
  if (click.setParameter !== undefined) {
    const p = parameters.find((x) => x.name === click.setParameter);
    if (!p) throw validation(`${at}.setParameter: the dashboard has no parameter "${click.setParameter}"`);
    if (!SETTABLE.has(p.type))
      throw validation(
        `${at}.setParameter: "${p.name}" is a ${p.type}; a click sets a text, choice or query parameter`,
      );
  }
  if (click.link !== undefined) {
    const wrong = linkProblem(click.link);
    if (wrong) throw validation(`${at}.link: ${wrong}`);
  }
}
