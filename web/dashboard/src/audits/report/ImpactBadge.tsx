import { IMPACT_NAMES, type Finding } from '../api.ts';

/**
 * A finding's impact as a badge: the word says it (Critical, Serious, Moderate, Minor) and the colour only repeats it,
 * from red to blue, so a report is scanned for what matters most; each pair passes AA contrast in light and dark.
 */
export function ImpactBadge({ impact }: { impact: Finding['impact'] }) {
  return <span className={`impact-badge impact-${impact}`}>{IMPACT_NAMES[impact]}</span>;
}
