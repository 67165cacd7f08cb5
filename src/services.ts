import type { Service } from './kit/service.ts';
import { identityService } from './identity/service.ts';
import { dashboardService } from './dashboard/service.ts';
import { ingestService } from './ingest/service.ts';
import { auditService } from './audit/service.ts';

/** Every service the `platform` command knows, in start order. A new service adds one line here. */
export const services: Service[] = [identityService, dashboardService, auditService, ingestService];
