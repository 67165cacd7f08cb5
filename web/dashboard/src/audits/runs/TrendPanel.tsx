import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { WideTable } from '../../app/WideTable.tsx';
import { messageOf } from '../../data/errors.ts';
import { keys } from '../../data/keys.ts';
import { Chart } from '../../widgets/Chart.tsx';
import { useLook } from '../../widgets/useMedia.ts';
import { IMPACT_NAMES, IMPACT_ORDER, auditsApi, runDate, type ApiRun } from '../api.ts';
import { ImpactLegend } from './ImpactLegend.tsx';
import { impactOption, scoreOption } from './trendOption.ts';

/** The most runs a trend reads: the API's largest page. */
const SHOWN = 100;

/**
 * One URL's completed runs over time: the score, and failures by impact, each a chart named by what it shows, with the
 * same numbers in a table below (the charts' text alternative, and what a keyboard or screen reader user reads).
 */
export function TrendPanel({ url }: { url: string }) {
  const look = useLook();
  const trend = useQuery({
    queryKey: keys.audits.trend(url),
    queryFn: ({ signal }) =>
      auditsApi.get<{ items: ApiRun[] }>(
        `/audits?${new URLSearchParams({ url, status: 'completed', limit: String(SHOWN) })}`,
        signal,
      ),
  });
  const runs = useMemo(() => [...(trend.data?.items ?? [])].reverse(), [trend.data]);
  const score = useMemo(() => scoreOption(runs, look), [runs, look]);
  const impacts = useMemo(() => impactOption(runs, look), [runs, look]);
  if (trend.error)
    return (
      <p role="alert" className="error">
        {messageOf(trend.error, 'the audit service could not be reached')}
      </p>
    );
  if (!trend.data) return null;
  if (runs.length === 0)
    return <p className="hint">No completed run of this URL yet: the trend starts with the first.</p>;
  const last = runs[runs.length - 1]!;
  return (
    <section className="trend" aria-labelledby="trend-heading">
      <h2 id="trend-heading">Over time</h2>
      <div className="trend-charts">
        <figure>
          <figcaption>Score</figcaption>
          <Chart
            option={score}
            summary={`Score of ${runs.length} completed run${runs.length === 1 ? '' : 's'}, latest ${last.score}; the numbers are in the table below.`}
          />
        </figure>
        <figure>
          <figcaption>Failures by impact</figcaption>
          <Chart
            option={impacts}
            summary={`Failures by impact in ${runs.length} completed run${runs.length === 1 ? '' : 's'}; the numbers are in the table below.`}
          />
          <ImpactLegend dark={look.dark} />
        </figure>
      </div>
      <WideTable label="Score and failures by run">
        <table>
          <caption>Score and failures by run, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Score</th>
              {IMPACT_ORDER.map((i) => (
                <th scope="col" key={i}>
                  {IMPACT_NAMES[i]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id}>
                <th scope="row">{runDate(r)}</th>
                <td>{r.score}</td>
                {IMPACT_ORDER.map((i) => (
                  <td key={i}>{r.stats?.[i] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </WideTable>
    </section>
  );
}
