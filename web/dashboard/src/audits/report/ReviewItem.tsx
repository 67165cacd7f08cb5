import { SafeLink } from '../../app/SafeLink.tsx';
import type { NeedsReviewItem } from '../api.ts';

/**
 * One element a person has to check, as text only: what the rule asks, where the element is, its markup, why the
 * checks could not decide and, for a deep check that asks, the question to answer and how to answer it by hand.
 */
export function ReviewItem({ item, showPage }: { item: NeedsReviewItem; showPage: boolean }) {
  return (
    <article className="finding review">
      <h3 className="untrusted">{item.summary}</h3>
      <dl className="facts">
        {item.question && (
          <>
            <dt>Question</dt>
            <dd className="untrusted question">{item.question}</dd>
          </>
        )}
        {item.howToCheck && (
          <>
            <dt>How to check</dt>
            <dd className="untrusted fix">{item.howToCheck}</dd>
          </>
        )}
        <dt>Rule</dt>
        <dd>
          <code>{item.ruleId}</code>{' '}
          {item.successCriteria.length > 0
            ? `(WCAG ${item.successCriteria.join(', ')}, level ${item.level})`
            : '(a best practice, not a WCAG requirement)'}
        </dd>
        {showPage && (
          <>
            <dt>Page</dt>
            <dd>
              <SafeLink href={item.pageUrl} />
            </dd>
          </>
        )}
        <dt>Where</dt>
        <dd>
          <code>{item.selector}</code>
        </dd>
        <dt>Element</dt>
        <dd>
          <pre>
            <code>{item.html}</code>
          </pre>
        </dd>
        <dt>Why a person must check</dt>
        <dd className="untrusted fix">{item.reason}</dd>
        <dt>Help</dt>
        <dd>
          <SafeLink href={item.help}>{`${item.description} (rule help)`}</SafeLink>
        </dd>
      </dl>
    </article>
  );
}
