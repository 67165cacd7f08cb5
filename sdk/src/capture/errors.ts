import { cut } from './cut.ts';
import type { Emit } from './emit.ts';
import { withoutQuery } from './url.ts';

const MAX_STACK = 4000;
/** Messages can quote whole inputs (a response body, a JSON text): cut, so the event stays under the service's 100 KB. */
const MAX_MESSAGE = 1000;

/**
 * Query strings and fragments are never captured (they carry tokens: `/reset?token=…`), and a script inline in the
 * page has the page's own address as its file: cut from the URLs of a stack's frames (`(url?q:12:5)`, `fn@url#f:12:5`).
 */
// Applied to the stack once cut: the lazy match is quadratic in the length of a URL's query.
const FRAME_URL_QUERY = /(\w+:\/\/[^\s?#()]*)[?#][^\s()]*?(?=:\d+:\d+(?:\)|\s|$))/g;

function fromReason(reason: unknown): Record<string, unknown> {
  if (reason instanceof Error)
    return {
      'error.type': cut(String(reason.name), MAX_MESSAGE),
      'error.message': cut(String(reason.message), MAX_MESSAGE),
      ...(reason.stack ? { 'error.stack': cut(reason.stack, MAX_STACK).replace(FRAME_URL_QUERY, '$1') } : {}),
    };
  return { 'error.type': 'UnhandledRejection', 'error.message': cut(String(reason), MAX_MESSAGE) };
}

/** `error` events for uncaught errors and unhandled promise rejections. */
export function captureErrors(emit: Emit): () => void {
  const onError = (e: ErrorEvent) => {
    const fields =
      e.error instanceof Error
        ? fromReason(e.error)
        : { 'error.type': 'Error', 'error.message': cut(String(e.message), MAX_MESSAGE) };
    emit('error', { ...fields, metadata: { source: withoutQuery(e.filename ?? ''), line: e.lineno, column: e.colno } });
  };
  const onRejection = (e: PromiseRejectionEvent) =>
    emit('error', { ...fromReason(e.reason), metadata: { unhandledRejection: true } });
  addEventListener('error', onError);
  addEventListener('unhandledrejection', onRejection);
  return () => {
    removeEventListener('error', onError);
    removeEventListener('unhandledrejection', onRejection);
  };
}
