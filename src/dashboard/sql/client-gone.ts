import type { FastifyReply } from 'fastify';

/**
 * A signal that fires when the client closes the connection before the answer was sent, so a query it no longer
 * waits for is cancelled in the database instead of running on.
 */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  const onClose = () => {
    if (!res.writableFinished) controller.abort();
  };
  res.once('close', onClose);
  return controller.signal;
}
