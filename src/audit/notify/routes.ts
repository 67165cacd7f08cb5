import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../kit/app.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError, codeForStatus, errorResponses } from '../../kit/errors.ts';
import { newMessageId } from '../../kit/outbound/standard-webhooks.ts';
import { CALLER, CALLER_SECURITY } from '../auth/access.ts';
import { ownSite } from '../sites/owned.ts';
import { SiteParams, siteErrors } from '../sites/schemas.ts';
import { testPayload } from './message.ts';
import { DeliveryList, NotifyBody, NotifyOut, TestOut } from './schemas.ts';
import { sendNotice, SendError, type SendDeps } from './send.ts';
import { replaceSettings, settingsAnswer } from './settings.ts';
import { getSettings, listDeliveries } from './store.ts';

export interface NotifyDeps extends SendDeps {
  db: Database;
}

/** `/api/v1/sites/{id}/notifications`: where a site's notices go, a test notice, and the notices sent. */
export function registerNotifyRoutes(app: App, deps: NotifyDeps): void {
  app.register(async (plugin) => {
    const api = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const base = { config: { access: CALLER }, tags: ['sites'], security: CALLER_SECURITY, params: SiteParams };
    api.get(
      '/api/v1/sites/:id/notifications',
      {
        config: base.config,
        schema: {
          operationId: 'getSiteNotifications',
          summary: "The site's notice settings (never the webhook's secret)",
          tags: base.tags,
          security: base.security,
          params: base.params,
          response: { 200: NotifyOut, ...siteErrors },
        },
      },
      async (request) => {
        const site = await ownSite(deps.db, request.auditOwner, request.params.id);
        return settingsAnswer(await getSettings(deps.db, site.id));
      },
    );
    api.put(
      '/api/v1/sites/:id/notifications',
      {
        config: base.config,
        schema: {
          operationId: 'putSiteNotifications',
          summary: "Replace the site's notice settings: addresses, webhook, and what is worth a notice",
          description:
            'A run that scores lower than the site’s previous completed run, or finds serious or critical failures it did not have, is notified to each address and the webhook. A new webhook gets a signing secret (whsec_…), answered once.',
          tags: base.tags,
          security: base.security,
          params: base.params,
          body: NotifyBody,
          response: { 200: NotifyOut, ...siteErrors, ...errorResponses(413, 415) },
        },
      },
      async (request) => {
        const site = await ownSite(deps.db, request.auditOwner, request.params.id);
        return replaceSettings(
          { db: deps.db, policy: deps.webhookPolicy, secretKey: deps.secretKey },
          site.id,
          request.body,
        );
      },
    );
    api.post(
      '/api/v1/sites/:id/notifications/test',
      {
        config: base.config,
        schema: {
          operationId: 'testSiteNotifications',
          summary: 'Send a test notice (type audit.test) to each destination now, once, and answer how each went',
          tags: base.tags,
          security: base.security,
          params: base.params,
          response: { 200: TestOut, ...siteErrors },
        },
      },
      async (request) => {
        const site = await ownSite(deps.db, request.auditOwner, request.params.id);
        const settings = await getSettings(deps.db, site.id);
        const destinations = [
          ...settings.emails.map((target) => ({ channel: 'email' as const, target })),
          ...(settings.webhookUrl ? [{ channel: 'webhook' as const, target: settings.webhookUrl }] : []),
        ];
        if (destinations.length === 0)
          throw new HttpError(409, codeForStatus(409), 'the site has no address or webhook to notify; save one first');
        const payload = testPayload({ id: site.id, name: site.name, url: site.url });
        const results = await Promise.all(
          destinations.map(async (d) => {
            try {
              await sendNotice(
                deps,
                { id: newMessageId(), siteId: site.id, payload, ...d },
                settings.webhookSecretSealed,
              );
              return { ...d, delivered: true, error: null };
            } catch (err) {
              if (!(err instanceof SendError)) throw err;
              return { ...d, delivered: false, error: err.message };
            }
          }),
        );
        return { results };
      },
    );
    api.get(
      '/api/v1/sites/:id/notifications/deliveries',
      {
        config: base.config,
        schema: {
          operationId: 'listSiteNotices',
          summary: "The site's latest 50 notices, newest first, with their attempts and outcome",
          tags: base.tags,
          security: base.security,
          params: base.params,
          response: { 200: DeliveryList, ...siteErrors },
        },
      },
      async (request) => {
        const site = await ownSite(deps.db, request.auditOwner, request.params.id);
        return { items: await listDeliveries(deps.db, site.id, 50) };
      },
    );
  });
}
