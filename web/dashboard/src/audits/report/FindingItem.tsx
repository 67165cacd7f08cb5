import { SafeLink } from '../../app/SafeLink.tsx';
import type { Finding } from '../api.ts';
import { ImpactBadge } from './ImpactBadge.tsx';
import { Screenshot } from './Screenshot.tsx';

/**
 * One failing element, as text only: what the rule asks, its impact, where it is (the page, the selector), its markup
 * as the audited site wrote it (shown in a `<pre>`, never parsed), a deep audit's screenshot of it, how to fix it and
 * the rule's help. `level` is the heading level of its name within the screen's outline.
 */
export function FindingItem({ finding, level, showPage }: { finding: Finding; level: 3 | 4; showPage: boolean }) {
  const Heading = level === 3 ? 'h3' : 'h4';
  return (
    <article className="finding">
      <Heading className="untrusted">{finding.summary}</Heading>
      <dl className="facts">
        <dt>Impact</dt>
        <dd className="impact">
          <ImpactBadge impact={finding.impact} />
          {finding.ignored && ` (ignored: ${finding.ignored.reason}, until ${finding.ignored.expires})`}
        </dd>
        <dt>Rule</dt>
        <dd>
          <code>{finding.ruleId}</code>{' '}
          {finding.successCriteria.length > 0
            ? `(WCAG ${finding.successCriteria.join(', ')}, level ${finding.level})`
            : '(a best practice, not a WCAG requirement)'}
        </dd>
        {showPage && (
          <>
            <dt>Page</dt>
            <dd>
              <SafeLink href={finding.pageUrl} />
            </dd>
          </>
        )}
        <dt>Where</dt>
        <dd>
          <code>{finding.selector}</code>
        </dd>
        <dt>Element</dt>
        <dd>
          <pre>
            <code>{finding.html}</code>
          </pre>
        </dd>
        <Screenshot src={finding.screenshot} />
        {finding.fix && (
          <>
            <dt>Fix</dt>
            <dd className="untrusted fix">{finding.fix}</dd>
          </>
        )}
        <dt>Help</dt>
        <dd>
          <SafeLink href={finding.help}>{`${finding.description} (rule help)`}</SafeLink>
        </dd>
      </dl>
    </article>
  );
}
