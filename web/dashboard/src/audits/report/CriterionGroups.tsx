import { criterionName } from '../../../../../src/audit/report/criteria.ts';
import { groupByCriterion } from '../../../../../src/audit/report/group.ts';
import { SafeLink } from '../../app/SafeLink.tsx';
import type { Finding } from '../api.ts';
import { FindingItem } from './FindingItem.tsx';

/**
 * The findings grouped by WCAG success criterion in numeric order (a finding under each of its criteria, as in the
 * HTML report, src/audit/report/group.ts), then by page when the audit had several.
 */
export function CriterionGroups({ findings, manyPages }: { findings: Finding[]; manyPages: boolean }) {
  const groups = groupByCriterion(findings);
  return (
    <>
      {groups.map((g) => {
        const title = g.criterion
          ? `${g.criterion} ${criterionName(g.criterion) ?? ''}`.trim()
          : 'Not mapped to a success criterion';
        return (
          <section className="criterion" key={g.criterion ?? 'none'} aria-label={title}>
            <h3>
              {title} <span className="hint">({g.count} failing)</span>
            </h3>
            {g.pages.map((p) => (
              <div key={p.url}>
                {manyPages && (
                  <p>
                    On <SafeLink href={p.url} />
                  </p>
                )}
                {p.items.map((f) => (
                  <FindingItem key={`${g.criterion}-${f.id}`} finding={f} level={4} showPage={false} />
                ))}
              </div>
            ))}
          </section>
        );
      })}
    </>
  );
}
