import { Type } from 'typebox';
import { Slug } from '../schemas.ts';

export const ProviderParams = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z][a-z0-9-]*$' }),
});

export const ProviderList = Type.Object({
  providers: Type.Array(Type.Object({ id: Type.String(), loginUrl: Type.String() })),
});

export const StartQuery = Type.Object(
  {
    redirect: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          "where to go after login: the service's own public URL or an address on DASHBOARD_REDIRECT_ALLOWLIST",
      }),
    ),
    tenant: Type.Optional(Slug),
  },
  { additionalProperties: false },
);

export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 2000 })),
  state: Type.Optional(Type.String({ maxLength: 200 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
});
