import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** The person the stand-in's authorization page signs in (a test sets it before each login). */
export interface Person {
  id: number;
  login: string;
  name: string;
  email: string;
  verified: boolean;
}

interface Grant {
  person: Person;
  redirectUri: string;
  challenge: string | null;
  nonce: string | null;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

async function body(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

abstract class OAuthStandIn {
  url = '';
  person: Person | undefined;
  /** Every request received, for assertions on what the service sent. */
  readonly requests: {
    method: string;
    path: string;
    query: URLSearchParams;
    form?: URLSearchParams;
    authorization?: string | undefined;
  }[] = [];
  protected readonly grants = new Map<string, Grant>();
  protected readonly tokens = new Map<string, Person>();
  private server: Server | undefined;
  readonly clientId: string;
  readonly clientSecret: string;
  constructor(clientId: string, clientSecret: string) {
    this.clientId = clientId;
    this.clientSecret = clientSecret;
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', this.url);
      this.handle(req, res, url).catch((err) => json(res, 500, { message: String(err) }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The provider's consent page, approved at once by `person`: back to the app with a code. */
  protected authorize(res: ServerResponse, url: URL): void {
    const q = url.searchParams;
    this.requests.push({ method: 'GET', path: url.pathname, query: q });
    if (q.get('client_id') !== this.clientId || !this.person) {
      json(res, 400, { error: 'unknown client or no person' });
      return;
    }
    const code = randomBytes(16).toString('hex');
    this.grants.set(code, {
      person: this.person,
      redirectUri: q.get('redirect_uri')!,
      challenge: q.get('code_challenge'),
      nonce: q.get('nonce'),
    });
    const back = new URL(q.get('redirect_uri')!);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state')!);
    res.writeHead(302, { location: back.href }).end();
  }

  /** Checks a code exchange as the providers document it; an error string, or the grant. */
  protected redeem(form: URLSearchParams): Grant | string {
    const grant = this.grants.get(form.get('code') ?? '');
    if (!grant) return 'bad_verification_code';
    this.grants.delete(form.get('code')!);
    if (form.get('redirect_uri') !== grant.redirectUri) return 'redirect_uri_mismatch';
    if (grant.challenge && s256(form.get('code_verifier') ?? '') !== grant.challenge) return 'invalid_grant';
    return grant;
  }

  protected bearer(req: IncomingMessage): Person | undefined {
    const m = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? '');
    return m ? this.tokens.get(m[1]!) : undefined;
  }
}

/** GitHub's OAuth web flow and REST user API, as docs.github.com describes them. */
export class GitHubStandIn extends OAuthStandIn {
  /** Set to make the token endpoint refuse (GitHub answers 200 with an error body). */
  refuseExchange = false;

  protected async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') return this.authorize(res, url);
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = await body(req);
      this.requests.push({ method: 'POST', path: url.pathname, query: url.searchParams, form });
      if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret)
        return json(res, 200, {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        });
      const grant = this.redeem(form);
      if (this.refuseExchange || typeof grant === 'string')
        return json(res, 200, {
          error: this.refuseExchange ? 'bad_verification_code' : grant,
          error_description: 'The code passed is incorrect or expired.',
        });
      const token = `gho_${randomBytes(16).toString('hex')}`;
      this.tokens.set(token, grant.person);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const person = this.bearer(req);
    this.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
    });
    if (!person)
      return json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    if (url.pathname === '/api/user')
      return json(res, 200, { login: person.login, id: person.id, name: person.name, email: null });
    if (url.pathname === '/api/user/emails') {
      return json(res, 200, [
        { email: `${person.login}@users.noreply.github.com`, primary: false, verified: true, visibility: null },
        { email: person.email, primary: true, verified: person.verified, visibility: 'private' },
      ]);
    }
    json(res, 404, { message: 'Not Found' });
  }
}

/** Google's OpenID Connect endpoints (discovery, authorization, token with an RS256 ID token, UserInfo, JWKS). */
export class GoogleStandIn extends OAuthStandIn {
  private keys: Awaited<ReturnType<typeof generateKeyPair>> | undefined;
  /** Set to sign ID tokens with a nonce other than the one asked for. */
  wrongNonce = false;

  override async start(): Promise<this> {
    this.keys = await generateKeyPair('RS256');
    return super.start();
  }

  protected async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer: this.url,
        authorization_endpoint: `${this.url}/o/oauth2/v2/auth`,
        token_endpoint: `${this.url}/token`,
        userinfo_endpoint: `${this.url}/v1/userinfo`,
        jwks_uri: `${this.url}/oauth2/v3/certs`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        scopes_supported: ['openid', 'email', 'profile'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        code_challenge_methods_supported: ['plain', 'S256'],
      });
    }
    if (url.pathname === '/oauth2/v3/certs')
      return json(res, 200, {
        keys: [{ ...(await exportJWK(this.keys!.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }],
      });
    if (req.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') return this.authorize(res, url);
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = await body(req);
      this.requests.push({
        method: 'POST',
        path: url.pathname,
        query: url.searchParams,
        form,
        authorization: req.headers.authorization,
      });
      const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      const [id, secret] = basic.split(':').map(decodeURIComponent);
      if (id !== this.clientId || secret !== this.clientSecret)
        return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
      const grant = this.redeem(form);
      if (typeof grant === 'string') return json(res, 400, { error: 'invalid_grant', error_description: grant });
      const token = `ya29.${randomBytes(16).toString('hex')}`;
      this.tokens.set(token, grant.person);
      const now = Math.floor(Date.now() / 1000);
      const idToken = await new SignJWT({
        email: grant.person.email,
        email_verified: grant.person.verified,
        name: grant.person.name,
        nonce: this.wrongNonce ? 'not-the-nonce' : grant.nonce,
        azp: this.clientId,
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(this.url)
        .setAudience(this.clientId)
        .setSubject(String(grant.person.id))
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(this.keys!.privateKey);
      return json(res, 200, {
        access_token: token,
        expires_in: 3599,
        token_type: 'Bearer',
        scope: 'openid email profile',
        id_token: idToken,
      });
    }
    if (url.pathname === '/v1/userinfo') {
      const person = this.bearer(req);
      if (!person) return json(res, 401, { error: 'invalid_token' });
      return json(res, 200, {
        sub: String(person.id),
        email: person.email,
        email_verified: person.verified,
        name: person.name,
      });
    }
    json(res, 404, { error: 'not_found' });
  }
}
