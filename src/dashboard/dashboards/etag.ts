import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';
import type { DashboardRow } from './store.ts';
import { full } from './view.ts';

/** A strong entity tag naming the dashboard and its version. */
export const etagOf = (r: Pick<DashboardRow, 'id' | 'version'>) => `"${r.id}-${r.version}"`;

/** If-Match (RFC 9110): `*` or a list of strong tags, one of which must be the current one. */
export function checkIfMatch(request: FastifyRequest, current: DashboardRow): void {
  const header = request.headers['if-match'];
  if (header === undefined) return;
  const tags = header.split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.includes(etagOf(current))) return;
  throw new HttpError(
    412,
    'PRECONDITION_FAILED',
    `the dashboard has changed: it is at version ${current.version} (ETag ${etagOf(current)}); fetch it again and reapply your change`,
  );
}

/** If-None-Match names the current version (weak or strong): the client's copy is current. */
export function notModified(request: FastifyRequest, current: DashboardRow): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .includes(etagOf(current));
}

/** The full dashboard, its ETag in the header. */
export function sendWithTag(reply: FastifyReply, r: DashboardRow) {
  reply.header('etag', etagOf(r));
  return full(r);
}
