import type { ApiQueryResult } from '../api/types.ts';
import type { WidgetOptions } from './data.ts';
import { statParts } from './stat.ts';

/** A single number, with its unit and, unless the unit says it already, the column it comes from. */
export function StatWidget({ result, options }: { result: ApiQueryResult; options: WidgetOptions }) {
  const { value, unit, label } = statParts(result, options);
  return (
    <p className="stat">
      <span className="stat-value">
        {value}
        {unit ? <span className="stat-unit"> {unit}</span> : null}
      </span>
      {label && <span className="stat-label">{label}</span>}
    </p>
  );
}
