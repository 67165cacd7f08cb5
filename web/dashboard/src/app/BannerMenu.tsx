import { type ReactNode, useEffect, useState } from 'react';
import { usePath } from './router.tsx';

/**
 * The banner's navigation and who is signed in. On a wide screen they are the banner's row (each section a menu of its
 * own, Navigation.tsx). On a narrow one (styles.css, under 40rem) they stay behind a Menu button: with four sections the links alone filled a 320 px phone's first screen,
 * pushing each screen's heading below it. Opening another screen closes the menu again.
 */
export function BannerMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const path = usePath();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is the trigger, not a value read here
  useEffect(() => setOpen(false), [path]);
  return (
    <>
      <button
        type="button"
        className="menu-toggle secondary"
        aria-expanded={open}
        aria-controls="banner-menu"
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      <div id="banner-menu" className={open ? 'banner-menu open' : 'banner-menu'}>
        {children}
      </div>
    </>
  );
}
