import type { Emit } from './emit.ts';

interface Call {
  method: string;
  path: string;
  host?: string;
}

/** Method and path only: query strings, bodies and headers can carry secrets and are never captured. */
function describeCall(method: string | undefined, url: string | URL): Call | undefined {
  let u: URL;
  try {
    u = new URL(url, location.href);
  } catch {
    return undefined;
  }
  const call: Call = { method: (method ?? 'GET').toUpperCase(), path: u.pathname };
  if (u.origin !== location.origin) call.host = u.host;
  return call;
}

function emitPair(emit: Emit, call: Call, start: number, status: number | undefined, failed: boolean) {
  const base = {
    'api.method': call.method,
    'api.path': call.path,
    ...(call.host ? { metadata: { host: call.host } } : {}),
  };
  const response: Record<string, unknown> = {
    ...base,
    'api.duration_ms': Math.max(0, Math.round(performance.now() - start)),
  };
  if (status !== undefined && status >= 100 && status <= 599) response['api.status_code'] = status;
  if (failed) response.metadata = { ...(call.host ? { host: call.host } : {}), failed: true };
  emit('api.response', response);
}

/**
 * `api.request` when a fetch or XMLHttpRequest starts and `api.response` when it ends, with its status and
 * duration. Requests to the ingest service itself are left alone, so sending events makes no events.
 */
export function captureNetwork(emit: Emit, ignorePrefix: string): () => void {
  const ignored = (call: Call | undefined, url: string) => !call || url.startsWith(ignorePrefix);
  const originalFetch = window.fetch;
  window.fetch = function (input: RequestInfo | URL, init?: RequestInit) {
    const url = input instanceof Request ? input.url : String(input);
    const call = describeCall(init?.method ?? (input instanceof Request ? input.method : undefined), url);
    const abs = call ? new URL(url, location.href).href : url;
    if (ignored(call, abs)) return originalFetch.call(this, input, init);
    const start = performance.now();
    emit('api.request', { 'api.method': call!.method, 'api.path': call!.path });
    return originalFetch.call(this, input, init).then(
      (res) => {
        emitPair(emit, call!, start, res.status, false);
        return res;
      },
      (err: unknown) => {
        emitPair(emit, call!, start, undefined, true);
        throw err;
      },
    );
  };

  const proto = XMLHttpRequest.prototype;
  const open = proto.open;
  const sendXhr = proto.send;
  const calls = new WeakMap<XMLHttpRequest, { call: Call; url: string }>();
  proto.open = function (this: XMLHttpRequest, method: string, url: string | URL, ...rest: unknown[]) {
    const call = describeCall(method, url);
    if (call) calls.set(this, { call, url: new URL(url, location.href).href });
    return (open as (...a: unknown[]) => void).call(this, method, url, ...rest);
  } as typeof proto.open;
  proto.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    const entry = calls.get(this);
    if (entry && !ignored(entry.call, entry.url)) {
      const start = performance.now();
      emit('api.request', { 'api.method': entry.call.method, 'api.path': entry.call.path });
      this.addEventListener('loadend', () =>
        emitPair(emit, entry.call, start, this.status || undefined, this.status === 0),
      );
    }
    return sendXhr.call(this, body);
  };

  return () => {
    window.fetch = originalFetch;
    proto.open = open;
    proto.send = sendXhr;
  };
}
