import { Type, type Static } from 'typebox';

/** The read API's answers (routes.ts), shared with the console's Events screens (web/dashboard/src/events/). */
const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);
export const EventSummary = Type.Object({
  id: Type.String({ description: 'Row id, in the order the service stored events' }),
  event_id: Type.String(),
  type: Type.String({ description: '`event.type`' }),
  timestamp: Type.String({ description: '`event.timestamp`, as an instant' }),
  session_id: Type.String(),
  user_id: Nullable(Type.String({ description: '`user.id`, when the event has one' })),
  name: Nullable(Type.String({ description: '`event.name`, when the event has one' })),
  received_at: Type.String(),
});
export const FullEvent = Type.Object({
  ...EventSummary.properties,
  body: Type.Record(Type.String(), Type.Unknown(), { description: 'The event as it was accepted' }),
});
export const CountsAnswer = Type.Object({
  from: Type.String({ description: 'Start of the first bucket' }),
  to: Type.String({ description: 'End of the last bucket' }),
  bucket: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
  total: Type.Integer(),
  by_type: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })),
  by_time: Type.Array(Type.Object({ start: Type.String(), count: Type.Integer() })),
});

export type ApiEventSummary = Static<typeof EventSummary>;
export type ApiEvent = Static<typeof FullEvent>;
export type ApiEventCounts = Static<typeof CountsAnswer>;
