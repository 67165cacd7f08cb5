import { useMemo } from 'react';
import { formatDay, formatDayHour } from '../../app/datetime.ts';
import { Chart } from '../../widgets/Chart.tsx';
import { PALETTE, TEXT, TOOLTIP } from '../../widgets/chartOption.ts';
import { useLook } from '../../widgets/useMedia.ts';
import type { ApiEventCounts } from './api.ts';

const number = new Intl.NumberFormat();
// A day's bucket is a UTC day: named in UTC, so it is not called by the day before in a zone west of it.
const labelOf = (bucket: 'hour' | 'day', start: string) =>
  bucket === 'hour' ? formatDayHour(start) : formatDay(start, { timeZone: 'UTC' });

/**
 * A range's counts: events by hour or day and by type as bar charts (ECharts, loaded with the first chart), each with
 * the same numbers as a table (the charts' text alternative, under "Counts as tables").
 */
export function CountsView({ counts }: { counts: ApiEventCounts }) {
  const look = useLook();
  const theme = look.dark ? 'dark' : 'light';
  const label = (start: string) => labelOf(counts.bucket, start);
  const busiest = counts.by_time.reduce((a, b) => (b.count > a.count ? b : a), { start: '', count: 0 });
  const overTime = useMemo(
    () => ({
      animation: !look.reducedMotion,
      color: PALETTE[theme],
      textStyle: { color: TEXT[theme] },
      tooltip: { trigger: 'axis', renderMode: 'richText', ...TOOLTIP[theme] },
      grid: { left: 8, right: 16, top: 16, bottom: 8, containLabel: true },
      xAxis: {
        type: 'category',
        data: counts.by_time.map((b) => labelOf(counts.bucket, b.start)),
        axisLabel: { color: TEXT[theme] },
      },
      yAxis: { type: 'value', minInterval: 1, axisLabel: { color: TEXT[theme] } },
      series: [{ type: 'bar', name: 'Events', data: counts.by_time.map((b) => b.count) }],
    }),
    [counts, theme, look.reducedMotion],
  );
  const byType = useMemo(
    () => ({
      animation: !look.reducedMotion,
      // A colour of its own beside the blue of the counts over time, but not the palette's red: counts by type are
      // not failures, and red bars read as errors.
      color: PALETTE[theme].slice(5),
      textStyle: { color: TEXT[theme] },
      tooltip: { trigger: 'axis', renderMode: 'richText', ...TOOLTIP[theme] },
      grid: { left: 8, right: 16, top: 8, bottom: 8, containLabel: true },
      xAxis: { type: 'value', minInterval: 1, axisLabel: { color: TEXT[theme] } },
      yAxis: {
        type: 'category',
        inverse: true,
        data: counts.by_type.map((t) => t.type),
        axisLabel: { color: TEXT[theme] },
      },
      series: [{ type: 'bar', name: 'Events', data: counts.by_type.map((t) => t.count) }],
    }),
    [counts, theme, look.reducedMotion],
  );
  if (counts.total === 0) return <p className="status">No event in this range.</p>;
  const unit = counts.bucket === 'hour' ? 'hour' : 'day';
  return (
    <div className="counts">
      <div className="counts-chart">
        <h3>By {unit}</h3>
        <Chart
          option={overTime}
          summary={`Bar chart of events by ${unit}: ${number.format(counts.total)} in all, most (${number.format(busiest.count)}) ${counts.bucket === 'hour' ? 'at' : 'on'} ${label(busiest.start)}. The same numbers are in the tables below.`}
        />
      </div>
      <div className="counts-chart">
        <h3>By type</h3>
        <Chart
          option={byType}
          summary={`Bar chart of events by type: ${counts.by_type
            .slice(0, 5)
            .map((t) => `${t.type} ${number.format(t.count)}`)
            .join(', ')}${counts.by_type.length > 5 ? ', …' : ''}. The same numbers are in the tables below.`}
        />
      </div>
      <details className="counts-tables">
        <summary>Counts as tables</summary>
        <table>
          <caption>Events by {unit}</caption>
          <thead>
            <tr>
              <th scope="col">{counts.bucket === 'hour' ? 'Hour' : 'Day (UTC)'}</th>
              <th scope="col">Events</th>
            </tr>
          </thead>
          <tbody>
            {counts.by_time.map((b) => (
              <tr key={b.start}>
                <th scope="row">
                  <time dateTime={b.start}>{label(b.start)}</time>
                </th>
                <td>{number.format(b.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table>
          <caption>Events by type</caption>
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Events</th>
            </tr>
          </thead>
          <tbody>
            {counts.by_type.map((t) => (
              <tr key={t.type}>
                <th scope="row">{t.type}</th>
                <td>{number.format(t.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
