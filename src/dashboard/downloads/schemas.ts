import { Type } from 'typebox';
import { pictureValues } from '../render/values.ts';

export const RenderBody = Type.Object(
  {
    format: Type.Union([Type.Literal('png'), Type.Literal('pdf')], {
      description: 'png: one picture 1,280 px wide down to the last widget; pdf: pages 1,280 px wide (960 pt)',
    }),
    parameters: Type.Optional(
      pictureValues("the dashboard's parameters' values by name; those not given take their defaults"),
    ),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "IANA time zone the picture's times and ranges are written in (default UTC)",
      }),
    ),
  },
  { additionalProperties: false },
);

const file = (what: string) => ({ schema: { type: 'string', format: 'binary', description: what } });

/** The 200 of a render: the file itself, named by `Content-Disposition`. */
export const RenderedFile = {
  description:
    'The file, as a download: `Content-Disposition: attachment; filename="<title>-<date>.<png|pdf>"` (the title as letters, digits and hyphens)',
  content: {
    'image/png': file('the picture, 1,280 px wide'),
    'application/pdf': file('the picture on pages 960 pt wide and 1,186 pt tall'),
  },
};
