import { Type } from 'typebox';
import { MAX_PLAN_NAME_LENGTH, MAX_PLANNED_EVENTS, MAX_PLANNED_PROPERTIES } from './plan.ts';

/** The tracking plan's shapes, for its routes and the console's types (api-types.ts). */
const Name = (description: string) => Type.String({ minLength: 1, maxLength: MAX_PLAN_NAME_LENGTH, description });

export const Plan = Type.Object(
  {
    mode: Type.Union([Type.Literal('off'), Type.Literal('report'), Type.Literal('enforce')], {
      description:
        '`off`: nothing is checked; `report`: every event is stored as before and those breaking the plan are counted; `enforce`: those are rejected in the 202 answer (`errors`), counted too',
    }),
    allow_unplanned_events: Type.Boolean({
      default: true,
      description: 'Whether events the plan does not list pass (false: they break it)',
    }),
    events: Type.Array(
      Type.Object(
        {
          name: Name(
            'An `event.type` (`page.view`), or the `event.name` of a `custom` event (`signed-up`, as the SDK sends `track("signed-up")`)',
          ),
          allow_unplanned_properties: Type.Boolean({
            default: true,
            description:
              'Whether custom fields the plan does not list pass: top-level fields outside the contract, and keys of `metadata`',
          }),
          properties: Type.Array(
            Type.Object(
              {
                name: Name('A top-level field (`page.path`, `coupon`) or a key of `metadata` as `metadata.<key>`'),
                type: Type.Union(
                  [
                    Type.Literal('string'),
                    Type.Literal('number'),
                    Type.Literal('boolean'),
                    Type.Literal('object'),
                    Type.Literal('array'),
                  ],
                  { description: 'Its JSON type; `null` is of none' },
                ),
                required: Type.Boolean({ default: false }),
              },
              { additionalProperties: false },
            ),
            { maxItems: MAX_PLANNED_PROPERTIES, default: [] },
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_PLANNED_EVENTS, default: [] },
    ),
  },
  { additionalProperties: false },
);
export const ProjectPlan = Type.Intersect([Type.Object({ project_id: Type.String() }), Plan]);
export const Violations = Type.Object({
  project_id: Type.String(),
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  total: Type.Integer(),
  items: Type.Array(
    Type.Object({
      event: Type.String(),
      reason: Type.Union([
        Type.Literal('unplanned_event'),
        Type.Literal('missing_property'),
        Type.Literal('property_type'),
        Type.Literal('unplanned_property'),
      ]),
      count: Type.Integer(),
    }),
  ),
});
