import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../access/rules.ts';
import type { InteractionPages } from '../interaction/pages.ts';
import { requestSignInCode, verifySignInCode, type CodeSignInDeps } from './sign-in.ts';
import { htmlAnswers } from '../web/page-answers.ts';

const tags = ['sign-in'];
const Params = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 100 }) });
const Html = htmlAnswers(200, 400, 403, 429);
const Body = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    code: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: true },
);

/** Sign-in by a code mailed to the person, for the apps that allow it (their email_code_sign_in setting). */
export function registerCodeSignIn(plain: FastifyInstance, deps: CodeSignInDeps, pages: InteractionPages): void {
  // In the interaction pages' own scope (interaction/routes.ts): its form parser and its error pages apply.
  const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
  scope.post(
    '/interaction/:uid/email-code',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'requestSignInCode',
        tags,
        summary:
          'Mail a six-digit sign-in code to the address, if it has an account (the same answer either way); only for apps with email_code_sign_in',
        params: Params,
        body: Body,
        response: Html,
      },
    },
    async (request, reply) => {
      await requestSignInCode(deps, pages, request, reply, request.params.uid);
      return reply;
    },
  );
  scope.post(
    '/interaction/:uid/email-code/verify',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'verifySignInCode',
        tags,
        summary: 'Sign in with the emailed code (then the second step, when the person has one)',
        params: Params,
        body: Body,
        response: Html,
      },
    },
    async (request, reply) => {
      await verifySignInCode(deps, pages, request, reply, request.params.uid);
      return reply;
    },
  );
}
