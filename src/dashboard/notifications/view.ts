import type { Static } from 'typebox';
import type { Channel } from './schemas.ts';
import type { ChannelRow } from './store.ts';

export const channel = (r: ChannelRow): Static<typeof Channel> => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  addresses: r.addresses,
  target: r.url_origin,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});
