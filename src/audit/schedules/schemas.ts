import { Type, type Static } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const ScheduleKind = Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('cron')]);

export const ScheduleBody = Type.Object(
  {
    kind: ScheduleKind,
    time: Type.Optional(
      Type.String({
        pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
        description: 'daily and weekly: the time of day, HH:MM in timeZone (default 03:00)',
      }),
    ),
    weekday: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 6,
        description: 'weekly: the day, 0 Sunday to 6 Saturday (default 1, Monday)',
      }),
    ),
    cron: Type.Optional(
      Type.String({
        minLength: 9,
        maxLength: 120,
        description:
          'cron: a five-field expression (minute hour day-of-month month day-of-week), e.g. `30 2 * * 1-5`; at least 15 minutes between runs',
      }),
    ),
    timeZone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'An IANA time zone, e.g. `Europe/Paris` or `UTC`, in which the time or expression is read',
    }),
    enabled: Type.Optional(Type.Boolean({ description: 'false keeps the schedule but runs nothing (default true)' })),
  },
  { additionalProperties: false },
);

export const ScheduleOut = Type.Object({
  kind: ScheduleKind,
  time: nullable(Type.String({ description: 'daily and weekly: HH:MM' })),
  weekday: nullable(Type.Integer({ description: 'weekly: 0 Sunday to 6 Saturday' })),
  cron: Type.String({ description: 'The expression that runs (daily and weekly are written as one)' }),
  timeZone: Type.String(),
  enabled: Type.Boolean(),
  nextRunAt: nullable({ ...Timestamp, description: 'The next run; null when disabled' }),
  lastRunAt: nullable(Timestamp),
  lastJobId: nullable(Type.String({ description: 'The run the schedule last queued' })),
  lastError: nullable(
    Type.String({ description: 'Why the last slot queued no run (the queue full, the URL refused)' }),
  ),
});

export type ApiSchedule = Static<typeof ScheduleOut>;
export type ApiScheduleBody = Static<typeof ScheduleBody>;
