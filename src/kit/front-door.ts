import type { IncomingMessage, ServerResponse } from 'node:http';
import { databaseOutage, requestIdOf, type App } from './app.ts';
import { requestLogLevel } from './logger.ts';
import { httpRecorder } from './metrics.ts';

/**
 * Answers one request itself (true), or answers false having written nothing, and Fastify then routes the request as
 * usual. `requestId` is the id the answer carries in `x-request-id`.
 */
export type FrontDoorAnswer = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<boolean>;

interface Doors {
  answers: Map<string, FrontDoorAnswer>;
  closing: boolean;
}

const doorsOf = new WeakMap<object, Doors>();

/**
 * A POST to one exact path answered before Fastify routes it (issue 33): for the hottest routes of a service, whose
 * answer costs little more than Fastify's own request path (its request and reply objects, the request's child logger,
 * routing, content-type parsing and every app hook, each a promise). What those hooks do for an answered request is
 * done here instead: the request id in `x-request-id` (the answer sets it), the request in the HTTP metrics under
 * `url` as its route, the database counted as reachable again on an answer under 400, and the request's log line at
 * the level Fastify's would have (kit/logger.ts). Access is not checked: such a route is public at the HTTP layer.
 *
 * The same path must also be a Fastify route (declaring its access like any other): it answers whenever the door does
 * not — a request the door declines, one with a query string, one injected (`app.inject` calls Fastify directly), one
 * on a second listening address (Fastify's extra servers for `localhost`), every request once the app is closing.
 */
export function addFrontDoor(app: App, url: string, answer: FrontDoorAnswer): void {
  let doors = doorsOf.get(app);
  if (!doors) {
    doors = { answers: new Map(), closing: false };
    doorsOf.set(app, doors);
    openDoors(app, doors);
  }
  if (doors.answers.has(url)) throw new Error(`a front door already answers POST ${url}`);
  doors.answers.set(url, answer);
}

function openDoors(app: App, doors: Doors): void {
  const server = app.server;
  const [routing, ...others] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (!routing || others.length) throw new Error("the app's server must have Fastify's request listener only");
  const record = httpRecorder(app);
  const outage = databaseOutage(app);
  app.addHook('preClose', async () => {
    doors.closing = true;
  });

  const enter = (answer: FrontDoorAnswer, req: IncomingMessage, res: ServerResponse, url: string) => {
    const started = process.hrtime.bigint();
    const id = requestIdOf(req);
    answer(req, res, id).then(
      (answered) => {
        if (!answered) {
          routing(req, res);
          return;
        }
        if (!res.headersSent) return;
        const status = res.statusCode;
        record('POST', url, status, started);
        if (status < 400) outage.succeeded();
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        // A level the logger leaves out is a no-op function (pino).
        app.log[requestLogLevel(status, ms)](
          {
            reqId: id,
            req: { method: 'POST', url, ip: req.socket.remoteAddress },
            res: { statusCode: status },
            responseTime: ms,
          },
          'request completed',
        );
      },
      (err: unknown) => {
        if (!res.headersSent) {
          routing(req, res);
          return;
        }
        app.log.error({ reqId: id, err }, 'request errored');
        res.destroy();
      },
    );
  };

  server.removeListener('request', routing);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    const answer = req.method === 'POST' && !doors.closing ? doors.answers.get(url) : undefined;
    if (answer) enter(answer, req, res, url);
    else routing(req, res);
  });
}
