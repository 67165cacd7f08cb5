import { PRESETS, rangeOf, type Preset, type Range } from './range.ts';
import { ANY_TYPE, typeQuery, typesIn, type TypeChoice } from './type-choice.ts';

/** What the explorer is filtered by, as its form holds it (a custom range in the person's local time). */
export interface Filters {
  preset: Preset;
  since: string;
  until: string;
  types: TypeChoice;
  user: string;
  session: string;
  /** Leave out the project's internal and test users (`internal=exclude`, its Internal and test users panel). */
  hideInternal: boolean;
}
export const EMPTY: Filters = {
  preset: '7d',
  since: '',
  until: '',
  types: ANY_TYPE,
  user: '',
  session: '',
  hideInternal: false,
};

/** The read API's own limit on a user or session id (docs/ingest.md, "Reading events"): longer is no id of an event. */
const MAX_ID = 256;

const isPreset = (value: string | null): value is Preset => value !== null && Object.hasOwn(PRESETS, value);
const idIn = (search: URLSearchParams, name: string) => {
  const value = search.get(name)?.trim() ?? '';
  return value.length <= MAX_ID ? value : '';
};
/** An instant as a `datetime-local` field takes it: the person's local time, to the minute. */
function localMinute(iso: string | null): string {
  const at = iso ? new Date(iso) : undefined;
  if (!at || Number.isNaN(at.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}`;
}

/**
 * The filters a link or a reload carries (`?range=24h&type=page.view&user=ann&session=sess-a&internal=exclude`, a custom range as
 * `range=custom&from=…&to=…` in UTC so a link means the same hours in every time zone). A value the form could not
 * have made (an unknown range, a custom one that is not a range, an id longer than the API takes) is left at its
 * default, as if not given: a link typed or cut by hand still opens the explorer.
 */
export function filtersInAddress(query = location.search): Filters {
  const search = new URLSearchParams(query);
  const filters: Filters = {
    ...EMPTY,
    types: typesIn(search),
    user: idIn(search, 'user'),
    session: idIn(search, 'session'),
    hideInternal: search.get('internal') === 'exclude',
  };
  const preset = search.get('range');
  if (preset === 'custom') {
    const since = localMinute(search.get('from'));
    const until = localMinute(search.get('to'));
    if (typeof rangeOf('custom', since, until) !== 'string') return { ...filters, preset, since, until };
  } else if (isPreset(preset)) return { ...filters, preset };
  return filters;
}

/** `2024-05-01T08:00:00.000Z` as `2024-05-01T08:00Z`: the form's custom range is to the minute. */
const shortInstant = (iso: string) => iso.replace(/:00\.000Z$/, 'Z');

/**
 * Puts the project and the applied filters in the address without a new history entry, as the console keeps a
 * screen's filters (the audit runs, a dashboard's variables): a reload or a copied link shows the same events. A
 * filter at its default is left out, so Clear leaves the project alone.
 */
export function keepFiltersInAddress(filters: Filters, range: Range): void {
  const search = new URLSearchParams(location.search);
  // Other filters are another list: it starts at its first page.
  for (const name of ['range', 'from', 'to', 'type', 'exclude_type', 'user', 'session', 'internal', 'page'])
    search.delete(name);
  if (filters.preset !== EMPTY.preset) search.set('range', filters.preset);
  if (filters.preset === 'custom') {
    search.set('from', shortInstant(range.from));
    search.set('to', shortInstant(range.to));
  }
  for (const [name, values] of Object.entries(typeQuery(filters.types))) for (const v of values) search.append(name, v);
  for (const name of ['user', 'session'] as const) if (filters[name].trim()) search.set(name, filters[name].trim());
  if (filters.hideInternal) search.set('internal', 'exclude');
  const query = search.toString();
  history.replaceState(history.state, '', `${location.pathname}${query ? `?${query}` : ''}`);
}

/**
 * The most pages a link opens: the page is reached by reading every page before it (the read API's cursors only go
 * forward), so `?page=` is not a way to make the browser read a whole project; a narrower range is.
 */
export const MAX_PAGE_IN_ADDRESS = 100;

/**
 * The page of results in the address (`?page=3`; the first page is left out): a whole number from 1, as the pager
 * makes it. Anything else is page 1, and a page past MAX_PAGE_IN_ADDRESS that one.
 */
export function pageInAddress(query = location.search): number {
  const value = new URLSearchParams(query).get('page') ?? '';
  return /^[1-9][0-9]*$/.test(value) ? Math.min(Number(value), MAX_PAGE_IN_ADDRESS) : 1;
}

/** Puts the page shown in the address, as the filters are (no new history entry), so a reload or Back returns to it. */
export function keepPageInAddress(page: number): void {
  const search = new URLSearchParams(location.search);
  if (page > 1) search.set('page', String(page));
  else search.delete('page');
  const query = search.toString();
  history.replaceState(history.state, '', `${location.pathname}${query ? `?${query}` : ''}`);
}

/** The range the filters mean now; a preset's, should the custom one not be a range (checked when read, above). */
export function appliedRange(filters: Filters): Range {
  const range = rangeOf(filters.preset, filters.since, filters.until);
  return typeof range === 'string' ? (rangeOf(EMPTY.preset, '', '') as Range) : range;
}
