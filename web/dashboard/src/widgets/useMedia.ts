import { useEffect, useMemo, useState } from 'react';
import type { Look } from './chartOption.ts';

/** Follows a media query (dark colours, reduced motion) as the person's settings change. */
export function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const m = matchMedia(query);
    const update = () => setMatches(m.matches);
    update();
    m.addEventListener('change', update);
    return () => m.removeEventListener('change', update);
  }, [query]);
  return matches;
}

/** The person's colour scheme and motion settings: the same object until one of them changes. */
export function useLook(): Look {
  const dark = useMedia('(prefers-color-scheme: dark)');
  const reducedMotion = useMedia('(prefers-reduced-motion: reduce)');
  return useMemo(() => ({ dark, reducedMotion }), [dark, reducedMotion]);
}
