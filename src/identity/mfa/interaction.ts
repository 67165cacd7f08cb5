import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Interaction } from 'oidc-provider';
import type { Database } from '../../kit/db.ts';
import type { Throttle } from '../../kit/throttle.ts';
import type { PrincipalDirectory } from '../principals/directory.ts';
import type { CsrfTokens } from '../web/csrf.ts';
import { errorPage } from '../web/layout.ts';
import { startLoginSession } from '../sessions/store.ts';
import { loginCookie } from '../sessions/cookie.ts';
import { hasTotp, verifyTotp } from './totp.ts';
import { useRecoveryCode } from './recovery-codes.ts';
import { endPending, findPending, findPendingStep, startPending } from './pending.ts';
import { authenticationOptions, hasPasskey, PasskeyError, relyingParty, verifyPasskey } from './passkeys.ts';
import { secondFactorPage } from './templates.ts';
import { PUBLIC } from '../access/rules.ts';

/** What the sign-in pages lend this module, so the second factor finishes the interaction the same way. */
export interface InteractionTools {
  details(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Interaction | undefined>;
  /** Like details, but answers nothing when the interaction is gone (for JSON routes). */
  lookup(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<Interaction | undefined>;
  finish(
    request: FastifyRequest,
    reply: FastifyReply,
    result: Record<string, unknown>,
    cookies?: string[],
  ): Promise<FastifyReply>;
  html(reply: FastifyReply, status: number, body: string): FastifyReply;
  sameOrigin(request: FastifyRequest): boolean;
  /** The sign-in page again with a refused passkey's error beside its button. */
  signInAgain(
    request: FastifyRequest,
    reply: FastifyReply,
    d: Interaction,
    status: number,
    error: string,
  ): Promise<FastifyReply>;
}

export interface SecondFactorDeps {
  db: Database;
  secretKey: Buffer;
  accounts: PrincipalDirectory;
  csrf: CsrfTokens;
  throttle: Throttle;
  issuer: string;
  loginSessionTtl: number;
}

export interface SecondFactor {
  /** Adds the second-factor and passkey routes to the sign-in pages' context. */
  registerRoutes(plain: FastifyInstance, tools: InteractionTools): void;
  /** After a right password: the second-factor page when the person has one, else undefined (signed in). */
  afterPassword(
    request: FastifyRequest,
    reply: FastifyReply,
    d: Interaction,
    principalId: string,
    tools: InteractionTools,
  ): Promise<FastifyReply | undefined>;
  /**
   * After a social sign-in (`provider` is its id): records the pending second step and answers true when the
   * person has a second factor, so the sign-in goes on at the interaction page instead of finishing.
   */
  afterUpstream(interactionId: string, principalId: string, provider: string): Promise<boolean>;
  /** The interaction page while a second step is pending for it: the second-factor page, else undefined. */
  resume(reply: FastifyReply, d: Interaction, tools: InteractionTools): Promise<FastifyReply | undefined>;
  /** The passkey button of the sign-in page. */
  signInOption(d: Interaction): { action: string; optionsUrl: string; csrf: string };
}

const Params = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 100 }) });
const FormBody = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    code: Type.Optional(Type.String({ maxLength: 64 })),
    response: Type.Optional(Type.String({ maxLength: 16_384 })),
  },
  { additionalProperties: true },
);
const tags = ['sign-in'];
const Html = {
  200: Type.String(),
  400: Type.String(),
  401: Type.String(),
  403: Type.String(),
  413: Type.String(),
  415: Type.String(),
  429: Type.String(),
};
const OAuthError = Type.Object({ error: Type.String(), error_description: Type.String() });
const Options = Type.Unknown({
  description:
    'WebAuthn `PublicKeyCredentialRequestOptionsJSON` for `navigator.credentials.get()` (as @simplewebauthn/browser takes it)',
});

const path = (d: Interaction, rest: string) => `/interaction/${encodeURIComponent(d.uid)}/${rest}`;

export function secondFactor(deps: SecondFactorDeps): SecondFactor {
  const rp = relyingParty(deps.issuer);
  const binding = (d: Interaction) => `interaction:${d.jti}`;
  const passkeyOption = (d: Interaction) => ({
    action: path(d, 'passkey'),
    optionsUrl: path(d, 'passkey/options'),
    csrf: deps.csrf.issue(`passkey:${d.jti}`),
  });

  async function showSecondFactor(
    reply: FastifyReply,
    tools: InteractionTools,
    d: Interaction,
    principalId: string,
    status: number,
    error?: string,
    passkeyError?: string,
  ): Promise<FastifyReply> {
    const [totp, passkey, account] = await Promise.all([
      hasTotp(deps.db, principalId),
      hasPasskey(deps.db, principalId),
      deps.accounts.find(principalId),
    ]);
    return tools.html(
      reply,
      status,
      secondFactorPage({
        action: path(d, 'mfa'),
        csrf: deps.csrf.issue(`mfa:${d.jti}`),
        totp,
        passkey: passkey ? { ...passkeyOption(d), error: passkeyError } : undefined,
        error,
        accountLabel: account?.identifier ?? '',
      }),
    );
  }

  async function signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    tools: InteractionTools,
    d: Interaction,
    principalId: string,
    amr: string[],
  ): Promise<FastifyReply> {
    await endPending(deps.db, d.jti);
    // A login session after a social first step keeps the provider's id, as one without a second step does.
    const provider = amr[0] && amr[0] !== 'pwd' && amr[0] !== 'hwk' ? amr[0] : undefined;
    // Every way here is a second step or a passkey sign-in: the session records it (removing a factor asks for a fresh one).
    const token = await startLoginSession(
      deps.db,
      principalId,
      deps.loginSessionTtl,
      { ip: request.ip, userAgent: request.headers['user-agent'] },
      provider,
      true,
    );
    return tools.finish(request, reply, { login: { accountId: principalId, remember: true, amr } }, [
      loginCookie(token, deps.loginSessionTtl),
    ]);
  }

  const refused = (tools: InteractionTools, reply: FastifyReply, what: string) =>
    tools.html(
      reply,
      403,
      errorPage(
        'Request refused',
        `This form has expired or was not sent from the ${what} page. Go back and try again.`,
      ),
    );
  const expired = (tools: InteractionTools, reply: FastifyReply) =>
    tools.html(
      reply,
      400,
      errorPage(
        'Sign-in step expired',
        'This verification step is no longer open. Go back to the application and sign in again.',
      ),
    );

  return {
    signInOption: passkeyOption,

    async afterPassword(request, reply, d, principalId, tools) {
      const [totp, passkey] = await Promise.all([hasTotp(deps.db, principalId), hasPasskey(deps.db, principalId)]);
      if (!totp && !passkey) return undefined;
      await startPending(deps.db, d.jti, principalId);
      return showSecondFactor(reply, tools, d, principalId, 200);
    },

    async afterUpstream(interactionId, principalId, provider) {
      const [totp, passkey] = await Promise.all([hasTotp(deps.db, principalId), hasPasskey(deps.db, principalId)]);
      if (!totp && !passkey) return false;
      await startPending(deps.db, interactionId, principalId, provider);
      return true;
    },

    async resume(reply, d, tools) {
      if (d.prompt.name !== 'login') return undefined;
      const pending = await findPending(deps.db, d.jti);
      return pending ? showSecondFactor(reply, tools, d, pending, 200) : undefined;
    },

    registerRoutes(plain, tools) {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();

      scope.post(
        '/interaction/:uid/mfa',
        {
          config: { access: PUBLIC },
          schema: {
            operationId: 'submitSecondFactor',
            tags,
            summary: 'The second-factor form: a TOTP code or a recovery code (after the password)',
            params: Params,
            body: FormBody,
            response: Html,
          },
        },
        async (request, reply) => {
          if (!tools.sameOrigin(request))
            return tools.html(reply, 403, errorPage('Request refused', 'This form was sent from another site.'));
          const d = await tools.details(request, reply, request.params.uid);
          if (!d) return reply;
          if (d.prompt.name !== 'login' || !deps.csrf.verify(`mfa:${d.jti}`, request.body.csrf))
            return refused(tools, reply, 'verification');
          const step = await findPendingStep(deps.db, d.jti);
          if (!step) return expired(tools, reply);
          const { principalId, firstFactor } = step;
          const code = String(request.body.code ?? '').trim();
          if (!code)
            return showSecondFactor(
              reply,
              tools,
              d,
              principalId,
              400,
              'Enter the code from your authenticator app, or a recovery code.',
            );
          const keys = [`mfa:${principalId}`];
          const wait = await deps.throttle.waitSeconds(keys);
          if (wait > 0) {
            reply.header('retry-after', String(wait));
            return showSecondFactor(
              reply,
              tools,
              d,
              principalId,
              429,
              `Too many wrong codes. Wait ${wait} second${wait === 1 ? '' : 's'} and try again.`,
            );
          }
          const digits = code.replace(/\s+/g, '');
          let outcome: 'ok' | 'wrong' | 'reused';
          let amr: string[];
          if (/^\d{6}$/.test(digits)) {
            outcome = await verifyTotp(deps.db, deps.secretKey, principalId, digits, request.ip);
            amr = [firstFactor, 'otp'];
          } else {
            outcome = (await useRecoveryCode(deps.db, deps.secretKey, principalId, code)) ? 'ok' : 'wrong';
            amr = [firstFactor, 'kba'];
          }
          if (outcome !== 'ok') {
            await deps.throttle.fail(keys);
            return showSecondFactor(
              reply,
              tools,
              d,
              principalId,
              401,
              outcome === 'reused'
                ? 'This code was already used. Wait for your app to show the next code and enter that one.'
                : 'The code is not correct. Check your authenticator app (and its clock) or use a recovery code.',
            );
          }
          await deps.throttle.succeed(keys[0]!);
          const account = await deps.accounts.find(principalId);
          if (!account?.active) return expired(tools, reply);
          return signIn(request, reply, tools, d, principalId, amr);
        },
      );

      scope.post(
        '/interaction/:uid/passkey/options',
        {
          config: { access: PUBLIC },
          schema: {
            operationId: 'passkeySignInOptions',
            tags,
            summary:
              "WebAuthn options for a passkey sign-in (usernameless) or, after the password, a passkey second factor. Header `x-csrf-token`: the form's csrf value",
            params: Params,
            response: { 200: Options, 400: OAuthError, 403: OAuthError },
          },
        },
        async (request, reply) => {
          const fail = (status: 400 | 403, error: string, description: string) =>
            reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description });
          if (!tools.sameOrigin(request)) return fail(403, 'access_denied', 'this request came from another site');
          const d = await tools.lookup(request, reply, request.params.uid);
          if (!d)
            return fail(
              400,
              'invalid_request',
              'this sign-in request is no longer valid; go back to the application and start again',
            );
          if (d.prompt.name !== 'login' || !deps.csrf.verify(`passkey:${d.jti}`, request.headers['x-csrf-token']))
            return fail(403, 'access_denied', 'this page has expired; reload it and try again');
          const pending = await findPending(deps.db, d.jti);
          const options = await authenticationOptions(
            deps.db,
            rp,
            pending ? 'second_factor' : 'sign_in',
            binding(d),
            pending ?? null,
          );
          return reply.header('cache-control', 'no-store').send(options);
        },
      );

      scope.post(
        '/interaction/:uid/passkey',
        {
          config: { access: PUBLIC },
          schema: {
            operationId: 'submitPasskeySignIn',
            tags,
            summary:
              "The passkey form: the browser's WebAuthn answer in `response` (JSON), signing in or completing the second factor",
            params: Params,
            body: FormBody,
            response: Html,
          },
        },
        async (request, reply) => {
          if (!tools.sameOrigin(request))
            return tools.html(reply, 403, errorPage('Request refused', 'This form was sent from another site.'));
          const d = await tools.details(request, reply, request.params.uid);
          if (!d) return reply;
          if (d.prompt.name !== 'login' || !deps.csrf.verify(`passkey:${d.jti}`, request.body.csrf))
            return refused(tools, reply, 'sign-in');
          const step = await findPendingStep(deps.db, d.jti);
          const pending = step?.principalId;
          let principalId: string;
          try {
            principalId = await verifyPasskey(
              deps.db,
              rp,
              pending ? 'second_factor' : 'sign_in',
              binding(d),
              request.body.response,
              request.ip,
            );
          } catch (err) {
            if (!(err instanceof PasskeyError)) throw err;
            request.log.info({ status: err.status, reason: err.message }, 'passkey refused');
            return pending
              ? showSecondFactor(reply, tools, d, pending, err.status, undefined, err.message)
              : tools.signInAgain(request, reply, d, err.status, err.message);
          }
          const account = await deps.accounts.find(principalId);
          if (!account?.active || account.type !== 'human')
            return tools.signInAgain(
              request,
              reply,
              d,
              401,
              'This passkey is not registered for an account here, or was removed.',
            );
          return signIn(request, reply, tools, d, principalId, step ? [step.firstFactor, 'hwk'] : ['hwk', 'user']);
        },
      );
    },
  };
}
