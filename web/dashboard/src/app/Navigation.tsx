import { type FocusEvent, type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { useMedia } from '../widgets/useMedia.ts';
import { Link, usePath } from './router.tsx';
import { ROUTES, matchRoute, navigation, sectionOf, type MayOpen, type Route, type SectionName } from './routes.ts';

/** Where the banner's Menu button takes over (styles.css uses the same width). */
export const NARROW = '(max-width: 40rem)';

type Sections = ReturnType<typeof navigation>;

/**
 * The main navigation: every screen of the route table with a label that the person may open, grouped by section
 * (Dashboards, then each console section they hold a right in); with one section only, no section names.
 *
 * On a wide screen each section is a button that shows its links below it (the disclosure navigation of the WAI-ARIA
 * practices), so the banner stays one row: the four sections' 22 links filled four rows of it. Escape, a click
 * elsewhere, leaving the navigation with Tab or opening a screen closes it. On a narrow screen the navigation is behind
 * the banner's Menu button (BannerMenu.tsx), where each section's name heads its links, all shown.
 */
export function Navigation({ may }: { may: MayOpen }) {
  const sections = navigation(may);
  const narrow = useMedia(NARROW);
  if (sections.length <= 1)
    return (
      <nav aria-label="Main">
        <ul>
          <Links items={sections[0]?.items ?? []} />
        </ul>
      </nav>
    );
  if (narrow)
    return (
      <nav aria-label="Main" className="sections">
        {sections.map(({ section, label, items }) => (
          <div key={section} className="section">
            <h2 id={`nav-${section}`} className="section-name">
              {label}
            </h2>
            <ul aria-labelledby={`nav-${section}`}>
              <Links items={items} />
            </ul>
          </div>
        ))}
      </nav>
    );
  return <SectionMenus sections={sections} />;
}

function Links({ items }: { items: Sections[number]['items'] }) {
  return items.map((name) => (
    <li key={name}>
      <Link to={name}>{ROUTES[name].nav}</Link>
    </li>
  ));
}

function SectionMenus({ sections }: { sections: Sections }) {
  const [open, setOpen] = useState<SectionName>();
  const nav = useRef<HTMLElement>(null);
  const path = usePath();
  const here = matchRoute(path);
  const current = here ? sectionOf(here.route as Route) : undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is the trigger, not a value read here
  useEffect(() => setOpen(undefined), [path]);
  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent) => {
      if (!nav.current?.contains(e.target as Node)) setOpen(undefined);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !open) return;
    e.preventDefault();
    nav.current?.querySelector<HTMLButtonElement>(`button[aria-controls="nav-${open}-links"]`)?.focus();
    setOpen(undefined);
  };
  const onBlur = (e: FocusEvent) => {
    if (!nav.current?.contains(e.relatedTarget as Node | null)) setOpen(undefined);
  };

  return (
    <nav aria-label="Main" className="sections menus" ref={nav} onKeyDown={onKeyDown} onBlur={onBlur}>
      {sections.map(({ section, label, items }) => (
        <div key={section} className="section">
          <h2 className="section-heading">
            <button
              type="button"
              className={section === current ? 'section-toggle current' : 'section-toggle'}
              aria-current={section === current ? 'true' : undefined}
              aria-expanded={open === section}
              aria-controls={`nav-${section}-links`}
              onClick={() => setOpen(open === section ? undefined : section)}
            >
              {label}
            </button>
          </h2>
          <ul id={`nav-${section}-links`} className="section-links" hidden={open !== section}>
            <Links items={items} />
          </ul>
        </div>
      ))}
    </nav>
  );
}
