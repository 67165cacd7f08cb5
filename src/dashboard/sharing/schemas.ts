import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { Definition, Widget } from '../dashboards/definition.ts';

export const Share = Type.Object({
  shared: Type.Boolean(),
  url: Type.Optional(
    Type.String({
      description: 'the public link (DASHBOARD_PUBLIC_URL/public/<token>): anyone with it sees the charts',
    }),
  ),
  createdAt: Type.Optional(Timestamp),
  createdBy: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});

/** What a visitor with the link gets: no SQL, no data source, no saved query id. */
export const PublicWidget = Type.Object({
  id: Widget.properties.id,
  type: Widget.properties.type,
  title: Widget.properties.title,
  position: Widget.properties.position,
  options: Widget.properties.options,
  click: Widget.properties.click,
  runs: Type.Boolean({ description: 'whether the widget has a query to run (a text widget has none)' }),
});

export const PublicDashboard = Type.Object({
  title: Type.String(),
  description: Type.Optional(Type.String()),
  updatedAt: Timestamp,
  definition: Type.Object({
    layout: Definition.properties.layout,
    parameters: Definition.properties.parameters,
    refreshSeconds: Definition.properties.refreshSeconds,
    widgets: Type.Array(PublicWidget),
  }),
});
