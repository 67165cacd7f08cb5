import type { ReactNode } from 'react';
import { NarrowMenu } from './NarrowMenu.tsx';

/**
 * The banner's navigation and who is signed in. On a wide screen they are the banner's row (each section a menu of its
 * own, Navigation.tsx). On a narrow one (styles.css, under 40rem) they stay behind a Menu button (NarrowMenu.tsx): with
 * four sections the links alone filled a 320 px phone's first screen, pushing each screen's heading below it. Opening
 * another screen closes the menu again.
 */
export function BannerMenu({ children }: { children: ReactNode }) {
  return (
    <NarrowMenu id="banner-menu" label="Menu" className="banner-menu" toggleClassName="menu-toggle">
      {children}
    </NarrowMenu>
  );
}
