/**
 * The API's shapes as TypeScript types, derived from the routes' TypeBox schemas, for the web app
 * (web/dashboard imports this file type-only, so the browser bundle gets none of the server's code).
 */
import type { Static } from 'typebox';
import type {
  DataSourceCreated,
  DataSourceDetail,
  DataSourceListItem,
  CreateDataSourceBody,
  UpdateDataSourceBody,
} from './datasources/schemas.ts';
import type { DataSourceQueryResult, QueryResult, TableDescriptorSchema, WidgetRunResult } from './sql/schemas.ts';
import type { Definition, Parameter, Widget } from './dashboards/definition.ts';
import type { DashboardAccess, Full, ListItem, Summary, VersionSummary } from './dashboards/schemas.ts';
import type { SavedQuery } from './queries/schemas.ts';
import type { HistoryItem } from './history/schemas.ts';
import type { MeSchema, TokenPairSchema, UserSchema } from './schemas.ts';
import type { AuditRecord } from './audit/schemas.ts';
import type { Bundle, Imported } from './transfer/schemas.ts';
import type { PublicDashboard, Share } from './sharing/schemas.ts';
import type { TenantSchema } from './tenants/schemas.ts';
import type { CreatedUserSchema, PasswordLinkSchema } from './users/schemas.ts';
import type { SetupBody, SetupResultSchema, SetupStatusSchema } from './setup/schemas.ts';
import type { AlertRule, AlertRuleBody, Delivery, HistoryEntry } from './alerts/schemas.ts';
import type { SendResult, Subscription, SubscriptionBody } from './subscriptions/schemas.ts';
import type { RenderBody } from './downloads/schemas.ts';
import type { Channel, CreateChannelBody, CreatedChannel, TestResult } from './notifications/schemas.ts';

export type ApiUser = Static<typeof UserSchema>;
export type ApiMe = Static<typeof MeSchema>;
export type ApiCreatedUser = Static<typeof CreatedUserSchema>;
export type ApiPasswordLink = Static<typeof PasswordLinkSchema>;
export type ApiTokenPair = Static<typeof TokenPairSchema>;
export type ApiSetupStatus = Static<typeof SetupStatusSchema>;
export type ApiSetupBody = Static<typeof SetupBody>;
export type ApiSetupResult = Static<typeof SetupResultSchema>;
export type ApiDataSource = Static<typeof DataSourceListItem>;
export type ApiDataSourceDetail = Static<typeof DataSourceDetail>;
export type ApiDataSourceCreated = Static<typeof DataSourceCreated>;
export type ApiCreateDataSource = Static<typeof CreateDataSourceBody>;
export type ApiUpdateDataSource = Static<typeof UpdateDataSourceBody>;
export type ApiTable = Static<typeof TableDescriptorSchema>;
export type ApiDataSourceQueryResult = Static<typeof DataSourceQueryResult>;
export type ApiQueryResult = Static<typeof QueryResult>;
export type ApiWidgetRunResult = Static<typeof WidgetRunResult>;
export type ApiSavedQuery = Static<typeof SavedQuery>;
export type ApiHistoryItem = Static<typeof HistoryItem>;
export type ApiDashboardSummary = Static<typeof Summary>;
export type ApiDashboardListItem = Static<typeof ListItem>;
export type ApiDashboard = Static<typeof Full>;
export type ApiDashboardAccess = Static<typeof DashboardAccess>;
export type ApiDefinition = Static<typeof Definition>;
export type ApiWidget = Static<typeof Widget>;
export type ApiDashboardParameter = Static<typeof Parameter>;
export type ApiDashboardVersion = Static<typeof VersionSummary>;
export type ApiTenant = Static<typeof TenantSchema>;
export type ApiAuditRecord = Static<typeof AuditRecord>;
export type ApiDashboardBundle = Static<typeof Bundle>;
export type ApiImported = Static<typeof Imported>;
export type ApiShare = Static<typeof Share>;
export type ApiPublicDashboard = Static<typeof PublicDashboard>;
export type ApiAlertRule = Static<typeof AlertRule>;
export type ApiAlertRuleBody = Static<typeof AlertRuleBody>;
export type ApiAlertHistoryEntry = Static<typeof HistoryEntry>;
export type ApiAlertDelivery = Static<typeof Delivery>;
export type ApiChannel = Static<typeof Channel>;
export type ApiCreatedChannel = Static<typeof CreatedChannel>;
export type ApiCreateChannel = Static<typeof CreateChannelBody>;
export type ApiChannelTest = Static<typeof TestResult>;
export type ApiSubscription = Static<typeof Subscription>;
export type ApiSubscriptionBody = Static<typeof SubscriptionBody>;
export type ApiSubscriptionSend = Static<typeof SendResult>;
export type ApiRenderBody = Static<typeof RenderBody>;
/** The platform's list page: `next` is the cursor of the following page, null on the last. */
export type ApiPage<T> = { items: T[]; next: string | null };
export type ApiErrorBody = { error: { code: string; message: string } };
