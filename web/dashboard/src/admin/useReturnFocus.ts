import { useEffect, useRef } from 'react';

/**
 * When a panel (a form that replaced its opening button) closes, focus goes back to that button, so a keyboard
 * or screen reader user continues where they were instead of at the top of the page (WCAG 2.4.3).
 */
export function useReturnFocus<T extends HTMLElement>(open: boolean) {
  const ref = useRef<T>(null);
  const wasOpen = useRef(open);
  useEffect(() => {
    if (wasOpen.current && !open) ref.current?.focus();
    wasOpen.current = open;
  }, [open]);
  return ref;
}
