import { Type } from 'typebox';
import { timeRangeProblem } from '../dashboards/time-range.ts';
import type { DashboardRow } from '../dashboards/store.ts';
import { validation } from '../errors.ts';

/** A picture's parameter values by name, as a subscription fixes them and a download sends them. */
export const pictureValues = (description: string) =>
  Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String({ maxLength: 1000 }), {
    description,
    additionalProperties: false,
  });

/**
 * What the schema cannot say of a picture's values: each names a parameter the dashboard has, a choice is one of its
 * choices, a time range a preset or an absolute range. The 400 names the field (`parameters.<name>`).
 */
export function checkPictureValues(dashboard: DashboardRow, values: Record<string, string>): void {
  const declared = new Map((dashboard.definition.parameters ?? []).map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(values)) {
    const p = declared.get(name);
    if (!p) throw validation(`parameters.${name}: the dashboard has no such parameter`);
    if (p.type === 'choice' && !(p.choices ?? []).includes(value))
      throw validation(`parameters.${name}: must be one of ${(p.choices ?? []).join(', ')}`);
    const wrong = p.type === 'time_range' ? timeRangeProblem(value) : undefined;
    if (wrong) throw validation(`parameters.${name}: must be ${wrong}`);
  }
}
