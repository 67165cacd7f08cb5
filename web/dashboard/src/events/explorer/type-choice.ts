import { EVENT_TYPES } from '../types.ts';

/** The explorer's types: only those checked, or all but those checked. None checked is every type either way. */
export interface TypeChoice {
  mode: 'only' | 'except';
  types: readonly string[];
}
export const ANY_TYPE: TypeChoice = { mode: 'only', types: [] };

/** The types in the contract's order (the order of the checkboxes), each once, only those of the contract. */
function inOrder(types: Iterable<string>): string[] {
  const chosen = new Set(types);
  return EVENT_TYPES.filter((t) => chosen.has(t));
}

export function chooseTypes(mode: TypeChoice['mode'], types: Iterable<string>): TypeChoice {
  return { mode, types: inOrder(types) };
}

/** The read API's query for the choice: `type` or `exclude_type`, each repeated (docs/ingest.md, "Reading events"). */
export function typeQuery(choice: TypeChoice): { type?: readonly string[]; exclude_type?: readonly string[] } {
  if (choice.types.length === 0) return {};
  return choice.mode === 'only' ? { type: choice.types } : { exclude_type: choice.types };
}

/**
 * The choice in the address, as the API takes it (`?type=a&type=b` or `?exclude_type=c`), so a reload or a shared
 * link shows the same events (address.ts keeps it there). Types the contract does not have are left out (a link typed
 * by hand).
 */
export function typesIn(search: URLSearchParams): TypeChoice {
  const only = search.getAll('type');
  if (only.length) return chooseTypes('only', only);
  const except = search.getAll('exclude_type');
  return except.length ? chooseTypes('except', except) : ANY_TYPE;
}

/** The choice in a few words, naming at most `shown` types: "Any type", "3 types: page.view, ui.click, error", "All but custom". */
export function describeTypes(choice: TypeChoice, shown: number): string {
  const { types } = choice;
  if (types.length === 0) return 'Any type';
  const names =
    types.length > shown ? `${types.slice(0, shown).join(', ')} and ${types.length - shown} more` : types.join(', ');
  if (choice.mode === 'except') return `All but ${names}`;
  return types.length === 1 ? `1 type: ${names}` : `${types.length} types: ${names}`;
}

/** What the counts' sentence says of the types: " of 3 types (page.view, ui.click, error)", " of all types but custom". */
export function ofTypes(choice: TypeChoice): string {
  const { types } = choice;
  if (types.length === 0) return '';
  if (choice.mode === 'except') return ` of all types but ${types.join(', ')}`;
  return types.length === 1 ? ` of type ${types[0]}` : ` of ${types.length} types (${types.join(', ')})`;
}
