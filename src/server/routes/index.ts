import type { AnyRoute } from '../route';
import { defineRoute } from '../route';
import { buildOpenApi } from '../openapi';
import { apiDescription, API_VERSION } from '../api-description';
import { systemRoutes } from './system';
import { accountRoutes } from './account';
import { eventStream } from './events';
import { laneRoutes } from './lanes';
import { terminalRoutes } from './terminal';
import { orderAliasRoutes, orderRoutes } from './orders';
import { gatewayRoutes } from './gateway';
import { walletRoutes } from './wallets';
import { referenceDataRoutes } from './reference-data';
import { receivablesRoutes } from './receivables';
import { registerRoutes } from './register';
import { sandboxClockRoutes } from './sandbox-clock';
import { settlementRoutes } from './settlement';
import { onboardingRoutes } from './onboarding';
import { payportRoutes } from './payport';
import { payLinkRoutes } from './pay-links';
import { allEcommerceRoutes } from './ecommerce';
import { webhookRoutes } from './webhooks';
import { collaborationRoutes } from './collaboration';
import { notificationRoutes } from './notifications';
import { syncRoutes } from './sync';
import { syncGiftCardRoutes } from './sync-gift-cards';
import { syncRefundClaimRoutes } from './sync-refund-claims';
import { syncUpstreamRoutes } from './sync-upstream';
import { userRoutes } from './users';
import { backofficeRoutes } from './backoffice';
import { backofficeDetailRoutes } from './backoffice-details';
import { importRoutes } from './imports';
import { Type } from '@sinclair/typebox';

/** Every operation of the API. Each domain contributes one list. */
const domainRoutes: AnyRoute[] = [
  ...systemRoutes,
  ...accountRoutes,
  eventStream,
  ...receivablesRoutes,
  ...orderRoutes,
  ...gatewayRoutes,
  // After POST /api/gateway/v1/orders/{action}: GET /api/gateway/v1/orders/{token} must not shadow them.
  ...orderAliasRoutes,
  ...walletRoutes,
  ...referenceDataRoutes,
  ...laneRoutes,
  ...terminalRoutes,
  ...registerRoutes,
  ...sandboxClockRoutes,
  ...settlementRoutes,
  ...onboardingRoutes,
  ...payportRoutes,
  ...payLinkRoutes,
  ...allEcommerceRoutes,
  ...webhookRoutes,
  ...collaborationRoutes,
  ...notificationRoutes,
  ...syncRoutes,
  ...syncGiftCardRoutes,
  ...syncRefundClaimRoutes,
  ...syncUpstreamRoutes,
  ...userRoutes,
  ...backofficeRoutes,
  ...backofficeDetailRoutes,
  ...importRoutes,
];

let cachedDoc: Record<string, unknown> | undefined;

export const openapiDocument = defineRoute({
  method: 'get',
  path: '/api/openapi.json',
  operationId: 'getOpenApiDocument',
  tags: ['Laneway'],
  summary: 'This OpenAPI 3.1 document',
  auth: false,
  responses: { 200: { description: 'OpenAPI document', schema: Type.Object({}, { additionalProperties: true }) } },
  handler() {
    cachedDoc ??= buildOpenApi(allRoutes, { version: API_VERSION, description: apiDescription });
    return { body: cachedDoc };
  },
});

export const allRoutes: AnyRoute[] = [...domainRoutes, openapiDocument];
