import { useRef } from 'react';

/**
 * `value` as first seen for as long as its content (as JSON) stays the same, so a memo or an effect that depends on
 * it runs again only when the content changes, not when an equal object is built anew.
 */
export function useSameContent<T>(value: T): T {
  const kept = useRef<{ json: string; value: T }>(undefined);
  const json = JSON.stringify(value);
  if (kept.current?.json !== json) kept.current = { json, value };
  return kept.current.value;
}
