import { queryOptions } from '@tanstack/react-query';
import { get } from '../api/client.ts';
import type { ApiAlertDelivery, ApiAlertHistoryEntry, ApiAlertRule, ApiChannel } from '../api/types.ts';
import { keys } from '../data/keys.ts';
import { fetchAllPages } from '../data/paging.ts';

/** Every alert rule of the tenant (a screen of states: short enough to read whole). */
export const alertRulesQuery = () =>
  queryOptions({
    queryKey: keys.alerts.list(),
    queryFn: ({ signal }) => fetchAllPages<ApiAlertRule>('/alert-rules', signal),
  });

export const alertRuleQuery = (id: number) =>
  queryOptions({
    queryKey: keys.alerts.one(id),
    queryFn: ({ signal }) => get<ApiAlertRule>(`/alert-rules/${id}`, signal),
  });

export const alertHistoryQuery = (id: number) =>
  queryOptions({
    queryKey: keys.alerts.history(id),
    queryFn: async ({ signal }) =>
      (await get<{ items: ApiAlertHistoryEntry[] }>(`/alert-rules/${id}/history?limit=100`, signal)).items,
  });

export const alertDeliveriesQuery = (id: number) =>
  queryOptions({
    queryKey: keys.alerts.deliveries(id),
    queryFn: async ({ signal }) =>
      (await get<{ items: ApiAlertDelivery[] }>(`/alert-rules/${id}/deliveries`, signal)).items,
  });

export const channelsQuery = () =>
  queryOptions({
    queryKey: keys.alerts.channels,
    queryFn: async ({ signal }) => (await get<{ items: ApiChannel[] }>('/alert-channels', signal)).items,
  });
