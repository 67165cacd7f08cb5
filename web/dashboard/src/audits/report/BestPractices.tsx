import type { AuditResult } from '../api.ts';
import { FindingItem } from './FindingItem.tsx';

/**
 * axe's best-practice rules, when the audit asked for them: apart from WCAG, since they change neither the score nor
 * the conformance. Their failures as the WCAG ones are shown, the rules that passed folded away.
 */
export function BestPractices({
  best,
  manyPages,
}: {
  best: NonNullable<AuditResult['bestPractices']>;
  manyPages: boolean;
}) {
  return (
    <section aria-labelledby="best-heading">
      <h2 id="best-heading">Best practices (not counted)</h2>
      <p>
        axe-core's best-practice rules are not WCAG requirements: they change neither the score nor the conformance.
      </p>
      {best.findings.length === 0 ? (
        <p>No best-practice rule failed.</p>
      ) : (
        best.findings.map((f) => <FindingItem key={f.id} finding={f} level={3} showPage={manyPages} />)
      )}
      {best.passed.length > 0 && (
        <details className="passed">
          <summary>{`Show the ${best.passed.length} best-practice rules that passed`}</summary>
          <ul>
            {best.passed.map((id) => (
              <li key={id}>
                <code>{id}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
