import { type ReactNode, useEffect, useRef, useState } from 'react';
import { usePath } from './router.tsx';

/**
 * What a narrow screen (under 40rem, styles.css; Navigation.tsx's NARROW) keeps behind a button: on a wide screen the
 * button is not drawn and the children lay out where the menu stands (its box is `display: contents`), so a toolbar or
 * the banner is one row; on a narrow one they wait behind the button, a disclosure (`aria-expanded`) whose content
 * opens below it in the page's flow, reached by Tab after it. Escape closes it and gives the focus back to the button;
 * opening another screen closes it. The banner's Menu (BannerMenu.tsx) and a dashboard's More (its secondary actions)
 * are both this.
 */
export function NarrowMenu({
  id,
  label,
  className,
  toggleClassName,
  children,
}: {
  id: string;
  label: string;
  /** Added to the menu's own class, for where it stands (the banner, a toolbar). */
  className?: string;
  toggleClassName?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const path = usePath();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is the trigger, not a value read here
  useEffect(() => setOpen(false), [path]);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKeyDown = (e: KeyboardEvent) => {
      // Only where the button is drawn: on a wide screen there is nothing to close (a menu left open when the window
      // widened), and the Escape is the banner's section menus' own.
      if (e.key !== 'Escape' || !toggle.current?.getClientRects().length) return;
      e.preventDefault();
      setOpen(false);
      toggle.current.focus();
    };
    // Listened to on the element, not through a React prop: the box holds controls but is none itself.
    const box = menu.current;
    box?.addEventListener('keydown', onKeyDown);
    return () => box?.removeEventListener('keydown', onKeyDown);
  }, [open]);
  return (
    <>
      <button
        ref={toggle}
        type="button"
        className={['narrow-menu-toggle secondary', toggleClassName].filter(Boolean).join(' ')}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
      >
        {label}
      </button>
      <div id={id} ref={menu} className={['narrow-menu', className, open && 'open'].filter(Boolean).join(' ')}>
        {children}
      </div>
    </>
  );
}
