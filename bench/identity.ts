/**
 * Identity benchmark: client-credentials tokens/s, introspections/s, and tokens/s obtained with a principal's API key
 * (RFC 8693 exchange) and key-pair assertion (RFC 7523 jwt-bearer, ES256) against a real PostgreSQL, with
 * a bare Fastify endpoint in the same server process as the ceiling. The server runs in a child
 * process; this process generates the load over keep-alive HTTP/1.1 connections (raw sockets, see Connection).
 *
 *   npm run bench:identity            (BENCH_SECONDS=10 BENCH_CONCURRENCY=32 by default)
 *   BENCH_BARE_BESIDE=1: bare Fastify is also measured right before each phase and once after the last, and each
 *   phase is put beside the mean of the two bare phases around it ("vs bare beside"), for a machine whose speed moves
 *   within a round.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Connection, percentile } from './support/connection.ts';
import { startOidcReference } from './support/oidc-reference.ts';
import { postgresCpuSeconds, postgresCpuSince } from './support/proc.ts';
import Fastify from 'fastify';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
// Rounds of every chosen phase in turn, one table each, so that a neighbour's burst shows as one odd round.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const BARE_BESIDE = process.env.BENCH_BARE_BESIDE === '1';
// For profiling one phase at a time, e.g. BENCH_PHASES=token.
// `reference` is the minimal in-memory oidc-provider (bench/support/oidc-reference.ts): its token and introspection phases.
const PHASES = new Set(
  (
    process.env.BENCH_PHASES ??
    'bare,reference,token,token-provider,introspection,introspection-provider,apikey,jwt,delegation,delegation-provider'
  ).split(','),
);

interface Ready {
  clientId: string;
  secret: string;
  port: number;
  barePort: number;
  apiKey: string;
  servicePrincipalId: string;
  keyId: string;
  privateKeyPkcs8: string;
  /** Delegation phase: a person's access token, and an agent's own access token (reusable as the actor token, unlike a signed assertion). */
  personToken: string;
  agentToken: string;
  /** The minimal in-memory oidc-provider's port and its one client_credentials client. */
  reference: { port: number; clientId: string; secret: string };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function serve(databaseUrl: string): Promise<void> {
  const { buildIdentityApp, identityRuntime } = await import('../src/identity/app.ts');
  const { loadIdentityConfig } = await import('../src/identity/config.ts');
  const { createApp, createSecret } = await import('../src/identity/apps/store.ts');
  const port = await freePort();
  const config = loadIdentityConfig({
    IDENTITY_DATABASE_URL: databaseUrl,
    IDENTITY_ISSUER: `http://localhost:${port}`,
    LOG_LEVEL: 'warn',
    PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: `/tmp/identity-bench-${process.pid}`,
    IDENTITY_EXTRA_SCOPES: 'events:write',
  });
  const app = await buildIdentityApp(config);
  await app.listen({ host: '127.0.0.1', port });
  const rt = identityRuntime(app);
  const machine = await createApp(
    rt.db,
    { name: 'Bench', appType: 'machine', allowedScopes: ['events:write'] },
    rt.scopes,
  );
  const secret = (await createSecret(rt.db, machine.id)).secret;
  const { createService } = await import('../src/identity/principals/store.ts');
  const { createApiKey, createKeypair } = await import('../src/identity/credentials/store.ts');
  const { generateKeyPair, exportPKCS8, exportSPKI } = await import('jose');
  const svc = await createService(rt.db, {
    name: 'bench-service',
    serviceType: 'bench',
    allowedScopes: ['events:write'],
  });
  const { apiKey } = await createApiKey(rt.db, svc.id, {});
  const pair = await generateKeyPair('ES256', { extractable: true });
  await createKeypair(rt.db, svc.id, {
    publicKey: await exportSPKI(pair.publicKey),
    algorithm: 'ES256',
    keyId: 'bench-key',
  });

  // Delegation (RFC 8693 with an actor token): a person's token made straight through the provider (the sign-in pages are not
  // what is measured), an agent that needs no approval, and the agent's own token from its key pair.
  const { createHuman, createAgent } = await import('../src/identity/principals/store.ts');
  const person = await createHuman(rt.db, { email: 'bench-person@example.com', displayName: 'Bench person' });
  await rt.db.query('UPDATE principals SET allowed_scopes = $2 WHERE id = $1', [
    person.id,
    JSON.stringify(['events:write']),
  ]);
  const personApp = await createApp(
    rt.db,
    {
      name: 'Bench person app',
      appType: 'web',
      redirectUris: ['https://bench.example/cb'],
      allowedScopes: ['events:write'],
      accessTokenTtl: 86_400,
    },
    rt.scopes,
  );
  const personClient = await rt.holder.current.Client.find(personApp.clientId);
  type AccessTokenInit = ConstructorParameters<typeof rt.holder.current.AccessToken>[0];
  const personToken = await new rt.holder.current.AccessToken({
    client: personClient!,
    accountId: person.id,
    scope: 'events:write',
    gty: 'authorization_code',
  } as unknown as AccessTokenInit).save();
  const agent = await createAgent(rt.db, {
    name: 'bench-agent',
    modelId: 'bench-model',
    allowedScopes: ['events:write'],
    requiresConfirmation: false,
  });
  await createKeypair(rt.db, agent.id, {
    publicKey: await exportSPKI(pair.publicKey),
    algorithm: 'ES256',
    keyId: 'bench-agent-key',
  });
  const { SignJWT } = await import('jose');
  const agentAssertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'bench-agent-key' })
    .setIssuer(agent.id)
    .setSubject(agent.id)
    .setAudience(`http://localhost:${port}`)
    .setExpirationTime('2m')
    .setJti('bench-agent')
    .sign(pair.privateKey);
  const agentAnswer = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${machine.clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: agentAssertion,
      scope: 'events:write',
    }),
  });
  const agentToken = ((await agentAnswer.json()) as { access_token: string }).access_token;

  const bare = Fastify({ logger: false });
  bare.post('/bare', async () => ({ ok: true }));
  bare.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
    done(null, body),
  );
  const barePort = await freePort();
  await bare.listen({ host: '127.0.0.1', port: barePort });
  const reference = await startOidcReference(await freePort());

  process.send!({
    ready: {
      clientId: machine.clientId,
      secret,
      port,
      barePort,
      apiKey,
      servicePrincipalId: svc.id,
      keyId: 'bench-key',
      privateKeyPkcs8: await exportPKCS8(pair.privateKey),
      personToken,
      agentToken,
      reference: { port: reference.port, clientId: reference.clientId, secret: reference.secret },
    } satisfies Ready,
  });
  // BENCH_PROFILE=DIR: a CPU profile of the server during each phase only (start-up and set-up left out), one file per phase.
  const { Session } = await import('node:inspector/promises');
  const profiler = process.env.BENCH_PROFILE ? new Session() : undefined;
  profiler?.connect();
  await profiler?.post('Profiler.setSamplingInterval', { interval: 200 });
  process.on('message', async (m: { stop?: boolean; cpu?: boolean; profile?: 'start' | string }) => {
    if (m.profile !== undefined && profiler) {
      if (m.profile === 'start') await profiler.post('Profiler.enable').then(() => profiler.post('Profiler.start'));
      else {
        const { profile } = await profiler.post('Profiler.stop');
        const { mkdirSync, writeFileSync } = await import('node:fs');
        mkdirSync(process.env.BENCH_PROFILE!, { recursive: true });
        writeFileSync(`${process.env.BENCH_PROFILE}/${m.profile}.cpuprofile`, JSON.stringify(profile));
      }
      process.send!({ profiled: m.profile });
      return;
    }
    // The server's CPU time so far, read before and after each phase: CPU per request is comparable across
    // runs on a shared machine, where requests per second mostly say how much of the cores the server got.
    if (m.cpu) {
      const { user, system } = process.cpuUsage();
      const main = process.threadCpuUsage();
      process.send!({ cpuMicros: user + system, mainMicros: main.user + main.system });
      return;
    }
    if (!m.stop) return;
    const maxRssKiB = process.resourceUsage().maxRSS;
    await bare.close();
    await reference.close();
    await app.close();
    process.send!({ stopped: { maxRssMiB: Math.round(maxRssKiB / 1024) } }, () => process.exit(0));
  });
}

interface Result {
  name: string;
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** The server process's CPU (user + system) per answered request, in microseconds. */
  cpuPerRequest: number;
  /**
   * The server's main thread alone (its event loop, which limits a route; the thread pool's crypto and GC threads left
   * out), in microseconds per answered request: the steadiest figure when the machine is shared (issue 33).
   */
  mainCpuPerRequest: number;
  /** CPU of every PostgreSQL process of the machine per answered request, in microseconds (0 for the in-memory phases). */
  postgresCpuPerRequest: number;
}

let server: ChildProcess | undefined;

/** Starts or ends the server's profile of a phase (BENCH_PROFILE), answered once done. */
async function profilePhase(step: 'start' | string): Promise<void> {
  const child = server;
  if (!child || !process.env.BENCH_PROFILE) return;
  await new Promise<void>((resolve) => {
    const onMessage = (m: { profiled?: string }) => {
      if (m.profiled !== step) return;
      child.off('message', onMessage);
      resolve();
    };
    child.on('message', onMessage);
    child.send({ profile: step });
  });
}

/** CPU time of the server process so far, in microseconds (the bare endpoint runs in the same process, so it is measured alike). */
async function serverCpu(): Promise<{ cpuMicros: number; mainMicros: number }> {
  const child = server;
  if (!child) return { cpuMicros: 0, mainMicros: 0 };
  return new Promise((resolve) => {
    const onMessage = (m: { cpuMicros?: number; mainMicros: number }) => {
      if (m.cpuMicros === undefined) return;
      child.off('message', onMessage);
      resolve({ cpuMicros: m.cpuMicros, mainMicros: m.mainMicros });
    };
    child.on('message', onMessage);
    child.send({ cpu: true });
  });
}

function formPost(port: number, path: string, body: string, headers: Record<string, string> = {}): Buffer {
  const lines = [
    `POST ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    'content-type: application/x-www-form-urlencoded',
    `content-length: ${Buffer.byteLength(body)}`,
  ];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

async function load(
  name: string,
  port: number,
  /** undefined when a finite supply (single-use assertions) has run out: that connection stops, the phase ends early. */
  requestOf: (i: number) => Buffer | undefined,
  ok: (status: number, body: string) => boolean,
  seconds = SECONDS,
): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  let ranOut = false;
  await profilePhase('start');
  const cpuBefore = await serverCpu();
  const postgresBefore = postgresCpuSeconds();
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const connection = new Connection(new URL(`http://127.0.0.1:${port}/`));
      try {
        while (performance.now() < deadline) {
          const bytes = requestOf(i++);
          if (!bytes) {
            ranOut = true;
            break;
          }
          const t = performance.now();
          const good = await connection.request(bytes).then(
            (r) => ok(r.status, r.body),
            () => false,
          );
          latencies.push(performance.now() - t);
          if (!good) errors++;
        }
      } finally {
        connection.close();
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = await serverCpu();
  const cpu = cpuAfter.cpuMicros - cpuBefore.cpuMicros;
  const mainCpu = cpuAfter.mainMicros - cpuBefore.mainMicros;
  const postgresCpu = postgresCpuSince(postgresBefore) * 1e6;
  await profilePhase(name.replace(/[^A-Za-z0-9]+/g, '-'));
  latencies.sort((a, b) => a - b);
  if (ranOut) console.log(`${name}: its supply ran out after ${elapsed.toFixed(1)} s; rates are over that time`);
  return {
    name,
    requests: latencies.length,
    errors,
    perSecond: Math.round(latencies.length / elapsed),
    p50: +percentile(latencies, 50).toFixed(2),
    p99: +percentile(latencies, 99).toFixed(2),
    cpuPerRequest: latencies.length ? Math.round(cpu / latencies.length) : 0,
    mainCpuPerRequest: latencies.length ? Math.round(mainCpu / latencies.length) : 0,
    postgresCpuPerRequest: latencies.length ? Math.round(postgresCpu / latencies.length) : 0,
  };
}

/** Each phase's ratios over the rounds and their median: one round of a loaded or uneven machine says little. */
function printMedians(tables: Array<Array<[Result, Result | undefined]>>, besideRatios: Map<Result, number>): void {
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const cell = (xs: number[]) =>
    xs.length ? `${xs.map((x) => x.toFixed(2)).join(', ')} (median ${median(xs).toFixed(2)})` : '-';
  console.log(`over ${tables.length} rounds`);
  console.log(`| phase | vs bare |${BARE_BESIDE ? ' vs bare beside |' : ''} vs oidc-provider in-memory |`);
  console.log(`|---|---|${BARE_BESIDE ? '---|' : ''}---|`);
  tables[0]!.forEach(([first], row) => {
    if (row === 0 || (first.requests === 0 && first.name.endsWith('(skipped)'))) return;
    const ofBare: number[] = [];
    const beside: number[] = [];
    const ofReference: number[] = [];
    for (const rows of tables) {
      const [r, of] = rows[row]!;
      const bare = rows[0]![0];
      if (bare.perSecond && r.perSecond) ofBare.push(r.perSecond / bare.perSecond);
      const b = besideRatios.get(r);
      if (b !== undefined) beside.push(b);
      if (of?.perSecond && r.perSecond) ofReference.push(r.perSecond / of.perSecond);
    }
    console.log(`| ${first.name} | ${cell(ofBare)} |${BARE_BESIDE ? ` ${cell(beside)} |` : ''} ${cell(ofReference)} |`);
  });
}

async function main(): Promise<void> {
  const { freshPostgres } = await import('../test/support/postgres.ts');
  const database = await freshPostgres('bench_identity');
  let child: ChildProcess | undefined;
  try {
    child = fork(new URL(import.meta.url).pathname, ['serve', database.url], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    server = child;
    const ready = await new Promise<Ready>((resolve, reject) => {
      child!.once('message', (m: { ready: Ready }) => resolve(m.ready));
      child!.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const auth = `Basic ${Buffer.from(`${ready.clientId}:${ready.secret}`).toString('base64')}`;
    const ccBody = 'grant_type=client_credentials&scope=events%3Awrite';

    const tokenRequest = formPost(ready.port, '/oauth/token', ccBody, { authorization: auth });
    const bareRequest = formPost(ready.barePort, '/bare', 'a=1');
    const issued = (status: number, body: string) => status === 200 && body.includes('"access_token"');
    const skipped = (name: string): Result => ({
      name,
      requests: 0,
      errors: 0,
      perSecond: 0,
      p50: 0,
      p99: 0,
      cpuPerRequest: 0,
      mainCpuPerRequest: 0,
      postgresCpuPerRequest: 0,
    });

    await load('warm-up', ready.port, () => tokenRequest, issued, 2);
    const refAuth = `Basic ${Buffer.from(`${ready.reference.clientId}:${ready.reference.secret}`).toString('base64')}`;
    const refTokenRequest = formPost(ready.reference.port, '/oauth/token', ccBody, { authorization: refAuth });
    if (PHASES.has('reference'))
      await load('reference warm-up', ready.reference.port, () => refTokenRequest, issued, 2);
    const one = new Connection(new URL(`http://127.0.0.1:${ready.port}/`));
    const introspections: Buffer[] = [];
    // The same questions with one extra parameter the provider ignores, which sends them past the fast route to the provider.
    const providerIntrospections: Buffer[] = [];
    for (let k = 0; k < 500; k++) {
      const token = JSON.parse((await one.request(tokenRequest)).body).access_token as string;
      introspections.push(
        formPost(ready.port, '/oauth/introspect', `token=${token}&token_type_hint=access_token`, {
          authorization: auth,
        }),
      );
      providerIntrospections.push(
        formPost(ready.port, '/oauth/introspect', `token=${token}&token_type_hint=access_token&via=provider`, {
          authorization: auth,
        }),
      );
    }
    one.close();
    // The same token request with one extra parameter the provider drops, which sends it past the fast route to the provider.
    const providerTokenRequest = formPost(ready.port, '/oauth/token', `${ccBody}&via=provider`, {
      authorization: auth,
    });
    const exchangeBody = `grant_type=${encodeURIComponent('urn:ietf:params:oauth:grant-type:token-exchange')}&subject_token=${ready.apiKey}&subject_token_type=${encodeURIComponent('urn:platform:params:oauth:token-type:api-key')}&scope=events%3Awrite`;
    const exchangeRequest = formPost(ready.port, '/oauth/token', exchangeBody, { authorization: auth });
    const delegationBody = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: ready.personToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: ready.agentToken,
      actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      scope: 'events:write',
    }).toString();
    const delegationRequest = formPost(ready.port, '/oauth/token', delegationBody, { authorization: auth });
    const providerDelegationRequest = formPost(ready.port, '/oauth/token', `${delegationBody}&via=provider`, {
      authorization: auth,
    });
    const active = (status: number, body: string) => status === 200 && body.includes('"active":true');

    const tables: Array<Array<[Result, Result | undefined]>> = [];
    const besideRatios = new Map<Result, number>();
    const besideBareRates = new Map<number, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      // With BENCH_BARE_BESIDE: each phase with the bare phase measured right before it; the next phase's (or the
      // closing one) is its bare after.
      const beside: Array<{ before: Result; result: Result }> = [];
      const bareNow = () =>
        load(
          'bare Fastify POST (beside)',
          ready.barePort,
          () => bareRequest,
          (s) => s === 200,
        );
      const phase = async (...args: Parameters<typeof load>): Promise<Result> => {
        if (!BARE_BESIDE) return load(...args);
        const before = await bareNow();
        const result = await load(...args);
        beside.push({ before, result });
        return result;
      };
      const bare = PHASES.has('bare')
        ? await load(
            'bare Fastify POST (ceiling)',
            ready.barePort,
            () => bareRequest,
            (status) => status === 200,
          )
        : skipped('bare Fastify POST (skipped)');
      // The library's ceiling in the same run: the minimal in-memory oidc-provider's tokens and introspections.
      let refToken = skipped('oidc-provider in-memory token (skipped)');
      let refIntro = skipped('oidc-provider in-memory introspection (skipped)');
      if (PHASES.has('reference')) {
        refToken = await phase(
          'oidc-provider in-memory client_credentials token (reference)',
          ready.reference.port,
          () => refTokenRequest,
          issued,
        );
        // Issued after the token phase: the in-memory adapter is an LRU, and that phase's tokens push older ones out.
        const refOne = new Connection(new URL(`http://127.0.0.1:${ready.reference.port}/`));
        const refIntrospections: Buffer[] = [];
        for (let k = 0; k < 500; k++) {
          const token = JSON.parse((await refOne.request(refTokenRequest)).body).access_token as string;
          refIntrospections.push(
            formPost(ready.reference.port, '/oauth/introspect', `token=${token}&token_type_hint=access_token`, {
              authorization: refAuth,
            }),
          );
        }
        refOne.close();
        refIntro = await phase(
          'oidc-provider in-memory introspection (reference)',
          ready.reference.port,
          (i) => refIntrospections[i % refIntrospections.length]!,
          active,
        );
      }
      const cc = PHASES.has('token')
        ? await phase('client_credentials token', ready.port, () => tokenRequest, issued)
        : skipped('client_credentials token (skipped)');
      const ccProvider = PHASES.has('token-provider')
        ? await phase(
            'client_credentials token through the provider (fast route bypassed)',
            ready.port,
            () => providerTokenRequest,
            issued,
          )
        : skipped('client_credentials token through the provider (skipped)');
      const intro = PHASES.has('introspection')
        ? await phase('introspection', ready.port, (i) => introspections[i % introspections.length]!, active)
        : skipped('introspection (skipped)');
      const introProvider = PHASES.has('introspection-provider')
        ? await phase(
            'introspection through the provider (fast route bypassed)',
            ready.port,
            (i) => providerIntrospections[i % providerIntrospections.length]!,
            active,
          )
        : skipped('introspection through the provider (skipped)');
      const apiKey = PHASES.has('apikey')
        ? await phase('API key token (RFC 8693 exchange)', ready.port, () => exchangeRequest, issued)
        : skipped('API key token (skipped)');

      // Every assertion needs its own jti, so they are signed before the phase (the load generator must not be the
      // bottleneck). Enough for the whole phase at the bare endpoint's rate of this round (no token can be faster),
      // or at 10,000/s without it; should a machine still outrun it, the phase ends when it runs out instead of
      // counting the replays the server refuses as errors.
      let jwt = skipped('private_key_jwt key-pair assertion token (skipped)');
      if (PHASES.has('jwt')) {
        const { signAssertions } = await import('./support/jwt-assertions.ts');
        const perSecond = Math.max(bare.perSecond, 10_000);
        const signed = signAssertions({
          privateKeyPkcs8: ready.privateKeyPkcs8,
          keyId: ready.keyId,
          principalId: ready.servicePrincipalId,
          audience: `http://localhost:${ready.port}`,
          lifetime: 240 + SECONDS,
          count: Math.ceil(perSecond * SECONDS * 1.1),
          jtiPrefix: `bench-${round}`,
        });
        const grant = encodeURIComponent('urn:ietf:params:oauth:grant-type:jwt-bearer');
        const assertions = signed.map((assertion) =>
          formPost(ready.port, '/oauth/token', `grant_type=${grant}&assertion=${assertion}&scope=events%3Awrite`, {
            authorization: auth,
          }),
        );
        jwt = await phase(
          'private_key_jwt key-pair assertion token (RFC 7523 jwt-bearer, ES256)',
          ready.port,
          (i) => assertions[i],
          issued,
        );
      }
      const delegation = PHASES.has('delegation')
        ? await phase('delegation token (RFC 8693 with actor token)', ready.port, () => delegationRequest, issued)
        : skipped('delegation token (skipped)');
      const delegationProvider = PHASES.has('delegation-provider')
        ? await phase(
            'delegation token through the provider (fast route bypassed)',
            ready.port,
            () => providerDelegationRequest,
            issued,
          )
        : skipped('delegation token through the provider (skipped)');
      // Each phase beside both ceilings: bare Fastify, and the in-memory oidc-provider's phase of the same kind
      // (introspection against its introspection, every token grant against its client_credentials token).
      if (BARE_BESIDE && beside.length) {
        const closing = await bareNow();
        besideBareRates.set(round, [...beside.map(({ before }) => before.perSecond), closing.perSecond]);
        beside.forEach(({ before, result }, k) => {
          const after = beside[k + 1]?.before ?? closing;
          besideRatios.set(result, result.perSecond / ((before.perSecond + after.perSecond) / 2));
        });
      }
      tables.push([
        [bare, undefined],
        [refToken, undefined],
        [refIntro, undefined],
        [cc, refToken],
        [ccProvider, refToken],
        [intro, refIntro],
        [introProvider, refIntro],
        [apiKey, refToken],
        [jwt, refToken],
        [delegation, refToken],
        [delegationProvider, refToken],
      ]);
    }

    const stopped = await new Promise<{ maxRssMiB: number }>((resolve) => {
      child!.on('message', (m: { stopped?: { maxRssMiB: number } }) => m.stopped && resolve(m.stopped));
      child!.send({ stop: true });
    });

    const ratio = (r: Result, of: Result | undefined) =>
      of?.perSecond && r.perSecond ? `${(r.perSecond / of.perSecond).toFixed(2)}` : '-';
    console.log(
      `identity benchmark: ${SECONDS} s per phase, ${CONCURRENCY} concurrent keep-alive connections, PostgreSQL ${new URL(database.url).host}`,
    );
    tables.forEach((rows, round) => {
      const bare = rows[0]![0];
      if (ROUNDS > 1) console.log(`round ${round + 1} of ${ROUNDS}`);
      const besideColumn = BARE_BESIDE ? ' vs bare beside |' : '';
      console.log(
        `| phase | requests | errors | req/s | p50 ms | p99 ms | vs bare |${besideColumn} vs oidc-provider in-memory | server CPU µs/request | of it main thread | PostgreSQL CPU µs/request |`,
      );
      console.log(`|---|---|---|---|---|---|---|${BARE_BESIDE ? '---|' : ''}---|---|---|---|`);
      for (const [r, of] of rows) {
        if (r.requests === 0 && r.name.endsWith('(skipped)')) continue;
        const besideCell = BARE_BESIDE ? ` ${besideRatios.get(r)?.toFixed(2) ?? '-'} |` : '';
        console.log(
          `| ${r.name} | ${r.requests} | ${r.errors} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${ratio(r, bare)} |${besideCell} ${ratio(r, of)} | ${r.cpuPerRequest} | ${r.mainCpuPerRequest} | ${r.postgresCpuPerRequest} |`,
        );
      }
      const rates = besideBareRates.get(round);
      if (rates) console.log(`bare Fastify beside the phases: ${Math.min(...rates)}-${Math.max(...rates)} req/s`);
    });
    if (ROUNDS > 1) printMedians(tables, besideRatios);
    const best = (index: number) => Math.max(...tables.map((rows) => rows[index]![0].perSecond));
    console.log(
      `issue 14's targets, set on a machine whose bare endpoint answered 36-43k/s: client_credentials >= 5000/s (best round here ${best(3)}/s), introspection >= 10000/s (best round here ${best(5)}/s)`,
    );
    console.log(`server peak RSS: ${stopped.maxRssMiB} MiB`);
  } finally {
    // The child exits by itself after "stopped" (and writes its --cpu-prof profile then); kill it only if it does not.
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      const timer = setTimeout(() => child!.kill(), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await database.drop();
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3]!);
else await main();
