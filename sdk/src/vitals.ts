import { onCLS, onFCP, onINP, onLCP, onTTFB, type Metric } from 'web-vitals';

type Emit = (type: string, fields: Record<string, unknown>) => void;

/** `performance` events, one per web vital as the `web-vitals` package reports it. */
export function startVitals(emit: Emit): void {
  const report = (m: Metric) =>
    emit('performance', {
      'event.name': m.name,
      'performance.value': m.value,
      'performance.rating': m.rating,
      'performance.id': m.id,
      'performance.navigation_type': m.navigationType,
    });
  for (const on of [onCLS, onFCP, onINP, onLCP, onTTFB]) on(report);
}
