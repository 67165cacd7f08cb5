import { OPTIONAL_FIELDS, REQUIRED_FIELDS } from '../events/fields.ts';

export const PLAN_MODES = ['off', 'report', 'enforce'] as const;
export type PlanMode = (typeof PLAN_MODES)[number];
export const PROPERTY_TYPES = ['string', 'number', 'boolean', 'object', 'array'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** Segment's Protocols allows 2,000 events per plan; 500 keeps a plan one screen of JSON a person can still read. */
export const MAX_PLANNED_EVENTS = 500;
export const MAX_PLANNED_PROPERTIES = 100;
export const MAX_PLAN_NAME_LENGTH = 256;

export interface PlannedProperty {
  name: string;
  type: PropertyType;
  required: boolean;
}

export interface PlannedEvent {
  name: string;
  allow_unplanned_properties: boolean;
  properties: PlannedProperty[];
}

/** A plan as stored and answered. */
export interface TrackingPlan {
  mode: PlanMode;
  allow_unplanned_events: boolean;
  events: PlannedEvent[];
}

export const NO_PLAN: TrackingPlan = { mode: 'off', allow_unplanned_events: true, events: [] };

/** What broke a plan, as counted by `GET …/tracking-plan/violations`. */
export type ViolationReason = 'unplanned_event' | 'missing_property' | 'property_type' | 'unplanned_property';

export interface Violation {
  /** The event's name in the plan's terms (eventName). */
  event: string;
  reason: ViolationReason;
  /** `<field>: <reason>`, as validation's errors are. */
  error: string;
}

export class PlanInputError extends Error {}

/**
 * Checks a plan's body beyond its schema (which refuses unknown fields, wrong types and too many entries): names not
 * blank, not repeated, `metadata.` followed by a key. Answers the plan with its defaults filled in.
 */
export function normalizePlan(plan: TrackingPlan): TrackingPlan {
  const events = new Set<string>();
  plan.events.forEach((event, i) => {
    const where = `events[${i}]`;
    checkName(`${where}.name`, event.name);
    if (events.has(event.name)) throw new PlanInputError(`${where}.name: ${event.name} is planned twice`);
    events.add(event.name);
    const properties = new Set<string>();
    event.properties.forEach((p, j) => {
      const at = `${where}.properties[${j}].name`;
      checkName(at, p.name);
      if (p.name === 'metadata.') throw new PlanInputError(`${at}: metadata. must be followed by a key of metadata`);
      if (properties.has(p.name)) throw new PlanInputError(`${at}: ${p.name} is planned twice`);
      properties.add(p.name);
    });
  });
  return plan;
}

function checkName(where: string, name: string): void {
  if (name.trim() === '') throw new PlanInputError(`${where}: must not be blank`);
  if (name.trim() !== name) throw new PlanInputError(`${where}: must not start or end with white space`);
}

/**
 * The name an event goes by in a plan: its `event.type`, or for a `custom` event its `event.name` (the SDK's
 * `track('signed-up')` sends `custom` with that name), so a plan lists `signed-up` as Segment's lists track names.
 */
export function eventName(event: Record<string, unknown>): string {
  const type = event['event.type'] as string;
  const name = event['event.name'];
  return type === 'custom' && typeof name === 'string' && name !== '' ? name : type;
}

/** The contract's own fields (events/fields.ts): every event may carry them whatever the plan says. */
const CONTRACT_FIELDS: ReadonlySet<string> = new Set([
  ...REQUIRED_FIELDS,
  ...OPTIONAL_FIELDS.map(([f]) => f).filter((f) => f !== 'metadata'),
]);

interface CompiledEvent {
  required: { name: string; path: readonly string[] }[];
  types: Map<string, { path: readonly string[]; type: PropertyType }>;
  allowUnplanned: boolean;
  /** `metadata` itself is planned: its keys are not looked at one by one. */
  metadataPlanned: boolean;
}

/** A plan ready for checking events: one map lookup per event. */
export interface CompiledPlan {
  mode: 'report' | 'enforce';
  check(event: Record<string, unknown>): Violation | undefined;
}

/** undefined when the plan is off: nothing to check. */
export function compilePlan(plan: TrackingPlan): CompiledPlan | undefined {
  if (plan.mode === 'off') return undefined;
  const events = new Map<string, CompiledEvent>();
  for (const e of plan.events) {
    const types = new Map<string, { path: readonly string[]; type: PropertyType }>();
    const required: { name: string; path: readonly string[] }[] = [];
    for (const p of e.properties) {
      const path = propertyPath(p.name);
      types.set(p.name, { path, type: p.type });
      if (p.required) required.push({ name: p.name, path });
    }
    events.set(e.name, {
      required,
      types,
      allowUnplanned: e.allow_unplanned_properties,
      metadataPlanned: types.has('metadata'),
    });
  }
  const allowUnplannedEvents = plan.allow_unplanned_events;
  return {
    mode: plan.mode,
    check(event) {
      const name = eventName(event);
      const planned = events.get(name);
      if (!planned) {
        if (allowUnplannedEvents) return undefined;
        const field = name === event['event.type'] ? 'event.type' : 'event.name';
        return { event: name, reason: 'unplanned_event', error: `${field}: ${name} is not in the tracking plan` };
      }
      for (const r of planned.required) {
        if (valueAt(event, r.path) === undefined)
          return {
            event: name,
            reason: 'missing_property',
            error: `${r.name}: required by the tracking plan for ${name}`,
          };
      }
      for (const [property, { path, type }] of planned.types) {
        const v = valueAt(event, path);
        if (v !== undefined && !isOfType(v, type))
          return {
            event: name,
            reason: 'property_type',
            error: `${property}: must be ${type === 'array' || type === 'object' ? 'an' : 'a'} ${type} (tracking plan for ${name})`,
          };
      }
      if (planned.allowUnplanned) return undefined;
      const unplanned = unplannedProperty(event, planned);
      return unplanned === undefined
        ? undefined
        : {
            event: name,
            reason: 'unplanned_property',
            error: `${unplanned}: not in the tracking plan for ${name}`,
          };
    },
  };
}

/** `metadata.plan` is the key `plan` of the `metadata` object; any other name is a top-level field, dots and all. */
function propertyPath(name: string): readonly string[] {
  return name.startsWith('metadata.') ? ['metadata', name.slice('metadata.'.length)] : [name];
}

function valueAt(event: Record<string, unknown>, path: readonly string[]): unknown {
  const top = event[path[0]!];
  if (path.length === 1) return top;
  if (typeof top !== 'object' || top === null || Array.isArray(top)) return undefined;
  return Object.hasOwn(top, path[1]!) ? (top as Record<string, unknown>)[path[1]!] : undefined;
}

function isOfType(v: unknown, type: PropertyType): boolean {
  switch (type) {
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    default:
      return typeof v === type;
  }
}

/** The first custom field (a top-level one not of the contract, or a key of `metadata`) the plan does not list. */
function unplannedProperty(event: Record<string, unknown>, planned: CompiledEvent): string | undefined {
  for (const field in event) {
    if (CONTRACT_FIELDS.has(field) || planned.types.has(field)) continue;
    if (field !== 'metadata') return field;
    if (planned.metadataPlanned) continue;
    const metadata = event.metadata;
    if (typeof metadata !== 'object' || metadata === null) continue;
    for (const key in metadata) if (!planned.types.has(`metadata.${key}`)) return `metadata.${key}`;
  }
  return undefined;
}
