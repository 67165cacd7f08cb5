export type Choice = 'in' | 'out';

/**
 * The visitor's capture choice for one project, kept in localStorage (`ingest.consent.<projectId>`: `in` or `out`).
 * localStorage rather than a cookie: a cookie would travel to the site's own server with every request, and the
 * SDK sets none; localStorage stays in the browser, is shared by the origin's tabs (so a choice made in one holds
 * in the others at their next event) and outlives the tab, unlike the session. Read at every use rather than
 * once, for that reason. Where storage is refused (a sandboxed frame) the choice lasts as long as the page.
 */
export function createConsent(projectId: string, requireConsent: boolean) {
  const key = `ingest.consent.${projectId}`;
  let memory: Choice | undefined;
  const read = (): Choice | undefined => {
    try {
      const v = localStorage.getItem(key);
      return v === 'in' || v === 'out' ? v : memory;
    } catch {
      return memory;
    }
  };
  return {
    /** Opted out by choice, or, with `requireConsent`, until the visitor opts in. */
    optedOut: () => {
      const choice = read();
      return choice === 'out' || (choice === undefined && requireConsent);
    },
    set(choice: Choice) {
      memory = choice;
      try {
        localStorage.setItem(key, choice);
      } catch {
        // Kept in memory for this page only.
      }
    },
  };
}
