import type { Emit } from './emit.ts';

const MAX_STACK = 4000;
/** Messages can quote whole inputs (a response body, a JSON text): cut, so the event stays under the service's 100 KB. */
const MAX_MESSAGE = 1000;

function fromReason(reason: unknown): Record<string, unknown> {
  if (reason instanceof Error) return { 'error.type': String(reason.name).slice(0, MAX_MESSAGE), 'error.message': String(reason.message).slice(0, MAX_MESSAGE), ...(reason.stack ? { 'error.stack': reason.stack.slice(0, MAX_STACK) } : {}) };
  return { 'error.type': 'UnhandledRejection', 'error.message': String(reason).slice(0, MAX_MESSAGE) };
}

/** `error` events for uncaught errors and unhandled promise rejections. */
export function captureErrors(emit: Emit): () => void {
  const onError = (e: ErrorEvent) => {
    const fields = e.error instanceof Error ? fromReason(e.error) : { 'error.type': 'Error', 'error.message': String(e.message).slice(0, MAX_MESSAGE) };
    emit('error', { ...fields, metadata: { source: e.filename, line: e.lineno, column: e.colno } });
  };
  const onRejection = (e: PromiseRejectionEvent) => emit('error', { ...fromReason(e.reason), metadata: { unhandledRejection: true } });
  addEventListener('error', onError);
  addEventListener('unhandledrejection', onRejection);
  return () => {
    removeEventListener('error', onError);
    removeEventListener('unhandledrejection', onRejection);
  };
}
