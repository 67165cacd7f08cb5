import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { ApiDashboardParameter } from '../api/types.ts';
import { messageOf } from '../data/errors.ts';

export type OptionsLoader = (
  name: string,
  values: Record<string, string>,
) => Promise<{ options: string[]; truncated: boolean }>;

/**
 * A parameter whose choices come from its query. The choices are read again whenever a parameter before it changes
 * (the chain: a country, then its cities); when the value chosen is no longer among them, the first choice is taken,
 * so the widgets never run with a city of another country.
 */
export function QueryParameter({
  id,
  parameter,
  before,
  value,
  load,
  onChoose,
}: {
  id: string;
  parameter: ApiDashboardParameter;
  /** The values of the parameters listed before it: what its query may use. */
  before: Record<string, string>;
  value: string;
  load: OptionsLoader;
  onChoose: (v: string) => void;
}) {
  const choices = useQuery({
    queryKey: ['parameter-options', parameter.name, parameter.query, before],
    queryFn: () => load(parameter.name, before),
  });
  const options = choices.data?.options;
  useEffect(() => {
    if (options && options.length > 0 && !options.includes(value)) onChoose(options[0]!);
  }, [options, value, onChoose]);
  if (choices.error)
    return (
      <span role="alert" className="error" id={id}>
        {messageOf(choices.error, 'the choices could not be loaded')}
      </span>
    );
  return (
    <select id={id} value={value} disabled={!options} onChange={(e) => onChoose(e.target.value)}>
      {!options && <option value={value}>Loading…</option>}
      {options?.length === 0 && <option value="">No choices</option>}
      {options?.map((o) => (
        <option key={o} value={o}>
          {o}
        </option>
      ))}
    </select>
  );
}
