import { Type } from 'typebox';

export const tags = ['sign-in'];
export const Params = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 100 }) });
export const FormBody = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
    decision: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: true },
);
export const Html = {
  200: Type.String(),
  400: Type.String(),
  401: Type.String(),
  403: Type.String(),
  413: Type.String(),
  415: Type.String(),
  429: Type.String(),
};
