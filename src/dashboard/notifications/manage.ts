import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { seal } from '../../kit/crypto.ts';
import { RefusedDestinationError, type AddressPolicy } from '../../kit/outbound/address-policy.ts';
import { newWebhookSecret } from '../../kit/outbound/standard-webhooks.ts';
import { actor, recordAudit } from '../audit/record.ts';
import { currentUser } from '../auth/authenticate.ts';
import type { DashboardContext } from '../context.ts';
import { conflictOn, notFound, validation } from '../errors.ts';
import type { CreateChannelBody, UpdateChannelBody } from './schemas.ts';
import { SECRET_CONTEXT, URL_CONTEXT } from './send.ts';
import {
  ChannelNameTaken,
  deleteChannel,
  getChannel,
  insertChannel,
  updateChannel,
  type ChannelKind,
  type ChannelRow,
} from './store.ts';

type Context = Pick<DashboardContext, 'db' | 'secretKey'>;

export async function channelOf(ctx: Pick<Context, 'db'>, tenantId: number, id: number): Promise<ChannelRow> {
  const row = await getChannel(ctx.db, tenantId, id);
  if (!row) throw notFound('notification channel');
  return row;
}

/**
 * A channel's destination, checked now so a mistyped or internal address is refused when it is saved (the send
 * checks it again, since a name can resolve elsewhere later): email needs addresses, a webhook or Slack a URL.
 */
async function destination(
  ctx: Context,
  policy: AddressPolicy,
  kind: ChannelKind,
  b: { addresses?: string[] | undefined; url?: string | undefined },
) {
  if (kind === 'email') {
    if (!b.addresses) throw validation('addresses: required for an email channel');
    if (b.url !== undefined) throw validation('url: an email channel has addresses, not a URL');
    return { addresses: b.addresses.map((a) => a.trim()), urlSealed: null, urlOrigin: null };
  }
  if (!b.url) throw validation(`url: required for a ${kind} channel`);
  if (b.addresses !== undefined) throw validation(`addresses: a ${kind} channel has a URL, not addresses`);
  let url: URL;
  try {
    url = new URL(b.url);
    policy.checkUrl(url);
    await policy.resolve(url.hostname);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw validation(`url: ${err.message}`);
    throw validation('url: not a valid absolute URL');
  }
  return { addresses: [], urlSealed: seal(ctx.secretKey, b.url, URL_CONTEXT), urlOrigin: url.origin };
}

export async function createChannel(
  ctx: Context,
  policy: AddressPolicy,
  request: FastifyRequest,
  body: Static<typeof CreateChannelBody>,
): Promise<{ row: ChannelRow; secret?: string }> {
  const me = currentUser(request);
  const dest = await destination(ctx, policy, body.kind, body);
  const secret = body.kind === 'webhook' ? newWebhookSecret() : undefined;
  const row = await ctx.db
    .transaction(async (tx) => {
      const row = await insertChannel(tx, me.tenantId, me.id, {
        name: body.name.trim(),
        kind: body.kind,
        ...dest,
        secretSealed: secret ? seal(ctx.secretKey, secret, SECRET_CONTEXT) : null,
      });
      await recordAudit(tx, {
        ...actor(request),
        action: 'alertchannel.create',
        targetType: 'alertchannel',
        targetId: row.id,
        details: { name: row.name, kind: row.kind, target: row.url_origin, addresses: row.addresses.length },
      });
      return row;
    })
    .catch(conflictOn(ChannelNameTaken));
  return secret ? { row, secret } : { row };
}

export async function changeChannel(
  ctx: Context,
  policy: AddressPolicy,
  request: FastifyRequest,
  id: number,
  body: Static<typeof UpdateChannelBody>,
): Promise<ChannelRow> {
  const me = currentUser(request);
  const current = await channelOf(ctx, me.tenantId, id);
  const keepUrl = current.kind !== 'email' && body.url === undefined;
  const dest = keepUrl
    ? { addresses: [], urlSealed: current.url_sealed, urlOrigin: current.url_origin }
    : await destination(ctx, policy, current.kind, body);
  return ctx.db
    .transaction(async (tx) => {
      const row = await updateChannel(tx, id, { name: body.name.trim(), ...dest });
      await recordAudit(tx, {
        ...actor(request),
        action: 'alertchannel.update',
        targetType: 'alertchannel',
        targetId: id,
        details: { name: row.name, target: row.url_origin, addresses: row.addresses.length },
      });
      return row;
    })
    .catch(conflictOn(ChannelNameTaken));
}

export async function removeChannel(ctx: Context, request: FastifyRequest, id: number): Promise<void> {
  const me = currentUser(request);
  const row = await channelOf(ctx, me.tenantId, id);
  await ctx.db.transaction(async (tx) => {
    await deleteChannel(tx, id);
    await recordAudit(tx, {
      ...actor(request),
      action: 'alertchannel.delete',
      targetType: 'alertchannel',
      targetId: id,
      details: { name: row.name },
    });
  });
}
