import { Type, type Static } from 'typebox';

export const ConsoleConfig = Type.Object(
  {
    identity: Type.Union([
      Type.Object({
        issuer: Type.String({ format: 'uri' }),
        clientId: Type.String(),
        redirectUri: Type.String({ format: 'uri' }),
        scope: Type.String(),
      }),
      Type.Null(),
    ]),
    services: Type.Array(
      Type.Object({
        section: Type.Union([Type.Literal('identity'), Type.Literal('audits'), Type.Literal('events')]),
        url: Type.String({ format: 'uri' }),
        scope: Type.String(),
      }),
    ),
  },
  {
    description:
      'The console: where it signs in (identity, null when identity does not run beside the dashboard) and the services whose sections it shows',
  },
);

/** `GET /api/v1/console/config`'s answer, for the web app too. */
export type ApiConsoleConfig = Static<typeof ConsoleConfig>;
