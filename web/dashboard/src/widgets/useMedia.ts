import { useEffect, useState } from 'react';

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

export const useLook = () => ({
  dark: useMedia('(prefers-color-scheme: dark)'),
  reducedMotion: useMedia('(prefers-reduced-motion: reduce)'),
});
