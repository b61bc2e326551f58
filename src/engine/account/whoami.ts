import type { EngineCore } from '../core';
import { recordsOfKind } from '../records';
import type { AccountProfile } from './profile';

/** The division record as the receivables domain stores it (records kind `division`). */
export interface DivisionData {
  code: string;
  name: string;
  parent_code: string | null;
  external_id?: string | null;
  deleted?: boolean;
  company_name?: string | null;
  address?: Partial<Record<'address_1' | 'address_2' | 'postal_code' | 'city' | 'province' | 'country', string | null>>;
}

/** GET /api/whoami's entry for one credential: the account profile, a fresh JWT, the divisions. */
export async function whoamiEntry(core: EngineCore, profile: AccountProfile, jwt: { jwt: string; exp: number }, options: { divisions?: boolean } = {}) {
  // A hosted merchant account has none of the install's divisions.
  const divisions = (options.divisions === false ? [] : await recordsOfKind<DivisionData>(core, 'division'))
    .filter((d) => !d.data.deleted)
    .map((d) => ({
      division_code: d.data.code,
      division_name: d.data.name,
      parent_code: d.data.parent_code ?? null,
      company_name: d.data.company_name ?? null,
      address: {
        address_1: d.data.address?.address_1 ?? null,
        address_2: d.data.address?.address_2 ?? null,
        postal_code: d.data.address?.postal_code ?? null,
        city: d.data.address?.city ?? null,
        province: d.data.address?.province ?? null,
        country: d.data.address?.country ?? null,
      },
    }));
  const caps = profile.capabilities;
  return {
    token: profile.token,
    name: profile.name,
    sender_identifier: profile.sender_identifier,
    jwt: jwt.jwt,
    jwt_exp: jwt.exp,
    currency: profile.currency,
    preferred_language: profile.preferred_language,
    business_number: profile.business_number,
    address_1: profile.address_1,
    address_2: profile.address_2,
    postal_code: profile.postal_code,
    city: profile.city,
    province: profile.province,
    country: profile.country,
    branding_partner: profile.branding_partner,
    branding_partner_config: profile.branding_partner_config,
    external_link: profile.external_link,
    environment: profile.environment,
    merchant_accounts: caps.order_transactions ? [processor(profile, 'MA', 'Card processor')] : [],
    settlement_bank_accounts: caps.order_transactions ? [{ ...processor(profile, 'BA', 'Bank (ACH/EFT) processor'), account_type: 'checking' }] : [],
    terminal_processors: caps.card_present_emv ? [processor(profile, 'TP', 'Card-present EMV lanes')] : [],
    gift_card_processors: caps.gift_cards ? [processor(profile, 'GC', 'Gift card processor')] : [],
    divisions,
    autopay_api_enabled: caps.autopay,
    capabilities: { ...caps },
  };
}

/** The processors of this install; their tokens are the settlement tokens orders may name. */
function processor(profile: AccountProfile, suffix: string, nickname: string) {
  return {
    token: `${profile.token}${suffix}`,
    currency: profile.currency,
    nickname: `${nickname}${profile.environment === 'sandbox' ? ' (sandbox)' : ''}`,
    deposit_account_masked_number: null,
    deposit_account_routing_number: null,
  };
}
