import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { navigate } from '../../app/router.tsx';
import { keys } from '../../data/keys.ts';
import { auditsApi, runDate, type ApiRun } from '../api.ts';

/** Picks another completed run of the same URL to compare this one with; the earlier run is the base. */
export function CompareWith({ run }: { run: ApiRun }) {
  const others = useQuery({
    queryKey: keys.audits.trend(run.url),
    queryFn: ({ signal }) =>
      auditsApi.get<{ items: ApiRun[] }>(
        `/audits?${new URLSearchParams({ url: run.url, status: 'completed', limit: '100' })}`,
        signal,
      ),
  });
  const choices = (others.data?.items ?? []).filter((r) => r.id !== run.id);
  const [chosen, setChosen] = useState('');
  const picked = chosen || choices.find((r) => r.createdAt < run.createdAt)?.id || choices[0]?.id || '';
  if (!others.data) return null;
  if (choices.length === 0) return <p className="hint">No other completed run of this URL to compare with yet.</p>;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const other = choices.find((r) => r.id === picked);
    if (!other) return;
    // The earlier run is the base: "new" then means new since then.
    const [older, newer] = other.createdAt < run.createdAt ? [other, run] : [run, other];
    navigate('auditCompare', { id: newer.id, baseId: older.id });
  };
  return (
    <form className="filters-bar" onSubmit={submit}>
      <div className="field">
        <label htmlFor="compare-with">Compare with the run of</label>
        <select id="compare-with" value={picked} onChange={(e) => setChosen(e.target.value)}>
          {choices.map((r) => (
            <option key={r.id} value={r.id}>
              {runDate(r)} (score {r.score})
            </option>
          ))}
        </select>
      </div>
      <div className="actions">
        <button type="submit">Compare</button>
      </div>
    </form>
  );
}
