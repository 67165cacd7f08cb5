import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { pictureValues } from '../render/values.ts';
import { Email } from '../schemas.ts';

const Frequency = Type.Union([Type.Literal('hourly'), Type.Literal('daily'), Type.Literal('weekly')]);

export const ScheduleSchema = Type.Object(
  {
    frequency: Frequency,
    minute: Type.Optional(Type.Integer({ minimum: 0, maximum: 59, description: 'minute of the hour (default 0)' })),
    hour: Type.Optional(Type.Integer({ minimum: 0, maximum: 23, description: 'daily and weekly: hour (default 8)' })),
    weekday: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 6, description: 'weekly: 0 Sunday … 6 Saturday (default 1, Monday)' }),
    ),
    timezone: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone of the hour (default UTC)' }),
    ),
  },
  { additionalProperties: false },
);

export const SubscriptionBody = Type.Object(
  {
    schedule: ScheduleSchema,
    recipients: Type.Object(
      {
        userIds: Type.Optional(
          Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
            maxItems: 100,
            uniqueItems: true,
          }),
        ),
        addresses: Type.Optional(Type.Array(Email, { maxItems: 100, uniqueItems: true })),
      },
      { additionalProperties: false },
    ),
    parameters: Type.Optional(pictureValues("the dashboard's parameters fixed for this subscription, by name")),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const Subscription = Type.Object({
  id: Type.Integer(),
  dashboardId: Type.Integer(),
  ownerId: Type.Integer({ description: 'whose view of the dashboard is sent: whoever last saved the subscription' }),
  schedule: Type.Object({
    frequency: Frequency,
    minute: Type.Integer(),
    hour: Type.Integer(),
    weekday: Type.Integer(),
    timezone: Type.String(),
  }),
  recipients: Type.Object({ userIds: Type.Array(Type.Integer()), addresses: Type.Array(Type.String()) }),
  parameters: Type.Record(Type.String(), Type.String()),
  enabled: Type.Boolean(),
  nextRunAt: Timestamp,
  lastSentAt: Type.Union([Timestamp, Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SendResult = Type.Object({ ok: Type.Boolean(), detail: Type.String() });
