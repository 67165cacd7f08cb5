import { ApiError } from '../api/client.ts';
import type { ApiErrorBody, ApiPublicDashboard, ApiWidgetRunResult } from '../api/types.ts';

/** A visitor's request: no session, no token (the link is the only key), the service's error shape on refusal. */
async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const r = await fetch(`/api/v1/public/dashboards/${path}`, {
    method,
    headers:
      body === undefined
        ? { accept: 'application/json' }
        : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
    signal: signal ?? null,
  });
  if (!r.ok) {
    const e = (await r.json().catch(() => ({}))) as Partial<ApiErrorBody>;
    throw new ApiError(
      r.status,
      e.error?.code ?? `HTTP_${r.status}`,
      e.error?.message ?? `the request failed (${r.status})`,
    );
  }
  return (await r.json()) as T;
}

export const loadPublic = (token: string, signal?: AbortSignal) =>
  call<ApiPublicDashboard>('GET', token, undefined, signal);

export const runPublicWidget = (
  token: string,
  widgetId: string,
  params: Record<string, string>,
  signal: AbortSignal,
  refresh = false,
) =>
  call<ApiWidgetRunResult>(
    'POST',
    `${token}/widgets/${encodeURIComponent(widgetId)}/run`,
    { params, maxRows: 1000, ...(refresh ? { refresh } : {}) },
    signal,
  );
