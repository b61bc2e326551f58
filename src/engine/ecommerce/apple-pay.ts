import { fail } from '../errors';
import type { Ids } from '../ids';
import type { ApplePayMerchantSession, ApplePayValidationRequest } from '../../shared/schemas/ecommerce';

/**
 * Apple Pay merchant validation. Apple answers it only to a merchant holding an Apple Pay merchant
 * identity certificate, which a Laneway install does not have: production says so (400). The
 * sandbox answers a simulated merchant session, in Apple's shape but signed by nobody, so a shop's
 * Apple Pay code path can be exercised end to end; no real Apple Pay sheet accepts it.
 */
export function simulatedMerchantSession(ctx: { sandbox: boolean; now: number; ids: Ids; storeName: string }, request: ApplePayValidationRequest): ApplePayMerchantSession {
  if (!ctx.sandbox) {
    throw fail.invalid('apple_pay_unavailable', 'Apple Pay needs a production merchant identity certificate from Apple, and this install has none: Apple Pay cannot be validated here', [{ field: '/validationUrl', message: 'Apple Pay merchant validation needs a merchant certificate' }]);
  }
  const at = ctx.now;
  const c = request.applePayConfig;
  const domain = c.initiativeContext ?? 'localhost';
  // A simulated session (sandbox only): the shape Apple answers, signed by nobody.
  return {
    epochTimestamp: at,
    expiresAt: at + 5 * 60_000,
    merchantSessionIdentifier: `SANDBOX${ctx.ids.token()}`,
    nonce: ctx.ids.secret(4),
    merchantIdentifier: c.merchantIdentifier ?? 'merchant.laneway.sandbox',
    domainName: domain,
    displayName: c.displayName ?? ctx.storeName,
    signature: Buffer.from(`laneway-sandbox-simulated-merchant-session:${domain}`).toString('base64'),
    operationalAnalyticsIdentifier: `laneway-sandbox:${domain}`,
    retries: 0,
    pspId: 'LANEWAYSANDBOX',
  };
}
