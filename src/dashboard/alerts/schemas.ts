import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { DisplayText, ListQuery } from '../schemas.ts';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
export const AlertStateSchema = Type.Union(
  [Type.Literal('ok'), Type.Literal('pending'), Type.Literal('firing'), Type.Literal('nodata'), Type.Literal('error')],
  { description: 'ok, pending (breached, within the pending period), firing, nodata, error' },
);
const Op = Type.Union(
  [Type.Literal('above'), Type.Literal('below'), Type.Literal('outside'), Type.Literal('no_data')],
  { description: 'above/below a threshold, outside [threshold, thresholdHigh], or no_data (no row)' },
);
const Threshold = Type.Number({ minimum: -1e15, maximum: 1e15 });

// One schema rather than a union of integer and null, so a bad value gets one message ("must be >= 5") instead of
// one per branch (as src/ingest/retention/routes.ts does).
const RepeatMinutes = Type.Unsafe<number | null>({
  type: ['integer', 'null'],
  minimum: 5,
  maximum: 10080,
  description:
    'remind every N minutes (5 minutes to 7 days, not less than intervalMinutes) while the rule stays firing, nodata or error; null or absent: never',
});

/** An alert rule as answered. */
export const AlertRule = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  ownerId: Type.Integer({ description: 'the user whose rights the query runs with: whoever last saved the rule' }),
  savedQueryId: Nullable(Type.Integer()),
  dashboardId: Nullable(Type.Integer()),
  widgetId: Nullable(Type.String()),
  valueColumn: Nullable(Type.String()),
  parameters: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  condition: Type.Object({ op: Op, threshold: Nullable(Type.Number()), thresholdHigh: Nullable(Type.Number()) }),
  intervalMinutes: Type.Integer(),
  pendingMinutes: Type.Integer(),
  repeatMinutes: Nullable(
    Type.Integer({ description: 'reminds every N minutes while firing, nodata or error; null: never' }),
  ),
  enabled: Type.Boolean(),
  channelIds: Type.Array(Type.Integer()),
  state: AlertStateSchema,
  stateSince: Timestamp,
  lastNotifiedAt: Type.Union([Timestamp, Type.Null()], {
    description: "the reminder clock: the rule's last notification, or the last one a silence swallowed",
  }),
  silencedUntil: Nullable(Timestamp),
  lastValue: Nullable(Type.Number()),
  lastError: Nullable(Type.String()),
  lastEvaluatedAt: Nullable(Timestamp),
  nextEvaluationAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const AlertRuleBody = Type.Object(
  {
    name: DisplayText(200),
    savedQueryId: Type.Optional(Id),
    dashboardId: Type.Optional(Id),
    widgetId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })),
    valueColumn: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[^\\u0000]*$',
        description: 'unset: the first numeric column',
      }),
    ),
    parameters: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
        Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]),
        {
          maxProperties: 20,
          additionalProperties: false,
          description:
            "values of the query's parameters by name: a saved query's :name, a widget's dashboard parameters (else their defaults)",
        },
      ),
    ),
    condition: Type.Object(
      { op: Op, threshold: Type.Optional(Threshold), thresholdHigh: Type.Optional(Threshold) },
      { additionalProperties: false },
    ),
    intervalMinutes: Type.Integer({ minimum: 1, maximum: 10080, description: 'evaluated every N minutes' }),
    pendingMinutes: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10080, description: 'how long a breach lasts before it fires (default 0)' }),
    ),
    repeatMinutes: Type.Optional(RepeatMinutes),
    enabled: Type.Optional(Type.Boolean()),
    channelIds: Type.Optional(Type.Array(Id, { maxItems: 20, uniqueItems: true })),
  },
  { additionalProperties: false },
);

export const AlertRuleListQuery = Type.Object(
  { ...ListQuery.properties, dashboardId: Type.Optional(Id) },
  { additionalProperties: false },
);

export const SilenceBody = Type.Object(
  {
    minutes: Type.Integer({
      minimum: 1,
      maximum: 43200,
      description: 'silence notifications this long (at most 30 days)',
    }),
  },
  { additionalProperties: false },
);

export const HistoryEntry = Type.Object({
  id: Type.Integer(),
  from: AlertStateSchema,
  to: AlertStateSchema,
  value: Nullable(Type.Number()),
  reason: Type.String(),
  at: Timestamp,
});

export const Delivery = Type.Object({
  id: Type.Integer(),
  channelId: Type.Integer(),
  type: Type.String(),
  reminder: Type.Boolean({
    description: 'a reminder that the rule is still in its state (repeatMinutes), not a change',
  }),
  reason: Type.String({ description: 'why it was sent, as the notification says it' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  sentAt: Nullable(Timestamp),
  createdAt: Timestamp,
});
