import { useEffect, useRef } from 'react';

/**
 * A panel that opens (configure a widget, settings, history) takes the focus to its heading, so a keyboard or
 * screen reader user lands where the new content is rather than behind it; `key` changing moves it again.
 */
export function useFocusOnOpen(key: string) {
  const ref = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the trigger, not an input: the same panel showing another widget (no remount) moves the focus again
  useEffect(() => {
    ref.current?.focus();
  }, [key]);
  return ref;
}
