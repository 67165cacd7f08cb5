import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';
import type { OutageLog } from '../../kit/outage-log.ts';
import type { ApiKeyLookup } from '../../kit/api-keys/lookup.ts';
import { isUnavailable } from './committer.ts';
import type { CorsPolicy } from './cors.ts';
import { answerUnavailable } from './unavailable.ts';

const projects = new WeakMap<FastifyRequest, string>();

/**
 * The check of `POST /v1/events` (access kind `api-key`): a live project API key in `X-Svc-API-Key`, looked up in the
 * key cache (one hash and a map lookup per request while the key is cached). CORS headers go on first, so a page can
 * read the refusal (an origin only the key's project allows gets them once the key is known). 401 without a key or with an unknown or revoked one; 503 when the database cannot be asked.
 */
export function apiKeyCheck(deps: {
  keys: ApiKeyLookup;
  cors: CorsPolicy;
  outage: OutageLog;
  retryAfterSeconds: number;
}): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    deps.cors.decorate(request, reply);
    const key = request.headers['x-svc-api-key'];
    if (typeof key !== 'string' || key.length === 0)
      throw new HttpError(401, 'UNAUTHORIZED', 'missing API key: send it in the X-Svc-API-Key header');
    let projectId: string | null | undefined;
    try {
      projectId = (await deps.keys.find(key))?.owner;
    } catch (err) {
      if (isUnavailable(err)) {
        deps.outage.failed(err);
        answerUnavailable(request, reply, deps.retryAfterSeconds, 'the database is unavailable; retry later');
        return;
      }
      throw err;
    }
    if (!projectId) throw new HttpError(401, 'UNAUTHORIZED', 'invalid or revoked API key');
    projects.set(request, projectId);
    // Only a browser sends Origin: a server posting events never waits on the projects' origins.
    if (typeof request.headers.origin === 'string') {
      await deps.cors.fresh();
      deps.cors.decorateFor(request, reply, projectId);
    }
  };
}

/** The project of the key a request passed `apiKeyCheck` with. */
export function projectOfRequest(request: FastifyRequest): string {
  const projectId = projects.get(request);
  if (projectId === undefined) throw new Error(`${request.method} ${request.url} did not pass the API key check`);
  return projectId;
}

/** The project of the key a request passed `apiKeyCheck` with; undefined before or without it. */
export function projectOfRequestIfAny(request: FastifyRequest): string | undefined {
  return projects.get(request);
}
