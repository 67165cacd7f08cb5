import type { ApiQueryResult } from '../api/types.ts';
import { seriesColumns, show, toNumber, type WidgetOptions } from './data.ts';

const format = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

/** A single number: the first row's value column (the widget's first value column, else the first numeric one). */
export function StatWidget({ result, options }: { result: ApiQueryResult; options: WidgetOptions }) {
  const { y } = seriesColumns(result, options);
  const column = y[0] ?? result.columns[0];
  const raw = column ? result.rows[0]?.[column] : undefined;
  const n = toNumber(raw);
  const text = raw === undefined ? 'No data' : n !== undefined ? format.format(n) : show(raw);
  return (
    <p className="stat">
      <span className="stat-value">
        {text}
        {options.unit ? <span className="stat-unit"> {options.unit}</span> : null}
      </span>
      {column && <span className="stat-label">{column}</span>}
    </p>
  );
}
