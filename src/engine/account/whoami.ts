import type { EngineCore } from '../core';
import { recordsOfKind } from '../records';
import type { AccountProfile } from './profile';
import { merchantId } from './merchant-id';
import { TEST_CARDS } from '../gateway/sandbox/test-data';
import { settlementTokens } from '../gateway/settlement-tokens';

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
    .map((d) => {
      const address = {
        address_1: d.data.address?.address_1 ?? null,
        address_2: d.data.address?.address_2 ?? null,
        postal_code: d.data.address?.postal_code ?? null,
        city: d.data.address?.city ?? null,
        province: d.data.address?.province ?? null,
        country: d.data.address?.country ?? null,
      };
      return { division_code: d.data.code, division_name: d.data.name, parent_code: d.data.parent_code ?? null, company_name: d.data.company_name ?? null, ...address, address };
    });
  const caps = profile.capabilities;
  const tokens = settlementTokens(profile);
  const giftCards = caps.gift_cards ? [processor(profile, tokens.gift, 'Gift card processor')] : [];
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
    merchant_accounts: caps.order_transactions ? [merchantAccount(profile, tokens.card)] : [],
    settlement_bank_accounts: caps.order_transactions ? [bankProcessor(profile, tokens.bank)] : [],
    terminal_processors: caps.card_present_emv ? [processor(profile, tokens.terminal, 'Card-present EMV lanes')] : [],
    gift_card_processors: giftCards,
    gift_cards: giftCards,
    divisions,
    autopay_api_enabled: caps.autopay,
    // Payments are applied to the invoices their import (or the back office) names, the rest kept as
    // unapplied credit: there is no manual or automatic matching step to turn on.
    arc_payment_match_mode: 'off' as const,
    erp_payment_match_mode: 'off' as const,
    external_payment_match_mode: 'off' as const,
    erp_payment_auto_match_mode: false,
    external_payment_auto_match_mode: false,
    capabilities: { ...caps },
  };
}

/** The card brands the sandbox processor approves (its test cards'); any other card declines. */
const ACCEPTABLE_CARDS = [...new Set(TEST_CARDS.filter((c) => c.profile === 'approve').map((c) => c.brand))];

const label = (profile: AccountProfile, nickname: string) => `${nickname}${profile.environment === 'sandbox' ? ' (sandbox)' : ''}`;

/**
 * The processors of this install; their tokens are the settlement tokens orders may name (the
 * gateway's settlementTokens). No
 * deposit or settlement bank account is on file for the install's own account, so their numbers
 * are null, and so are the hashes: with no full account number kept, there is nothing to hash.
 */
function processor(profile: AccountProfile, token: string, nickname: string) {
  return {
    token,
    currency: profile.currency,
    nickname: label(profile, nickname),
    deposit_account_masked_number: null,
    deposit_account_routing_number: null,
    deposit_routing_account_hash: null,
    deposit_routing_account_hash_function: null,
    gl_account: null,
    mid: merchantId(profile),
    tid: null,
    is_default: true,
  };
}

/** The account profile's address, as the merchant account and the settlement bank account show it; null when it has none. */
function profileAddress(profile: AccountProfile) {
  const address = { address_1: profile.address_1, address_2: profile.address_2, city: profile.city, province: profile.province, postal_code: profile.postal_code, country: profile.country };
  return Object.values(address).some((v) => v) ? address : null;
}

function merchantAccount(profile: AccountProfile, token: string) {
  return { ...processor(profile, token, 'Card processor'), acceptable_cards: ACCEPTABLE_CARDS, deposit_accounts: [], reference_token: null, address: profileAddress(profile) };
}

/**
 * The install's settlement bank account as whoami answers it (settlement_bank_accounts[]): routing
 * number, account number masked to its last four digits, and their hash. None is on file, so all
 * are null. Settlement batches name it as their deposit and fee withdrawal account.
 */
export function settlementBankAccount(_profile: AccountProfile): { routing_number: string | null; masked_account_number: string | null; routing_account_hash: string | null; routing_account_hash_function: string | null } {
  return { routing_number: null, masked_account_number: null, routing_account_hash: null, routing_account_hash_function: null };
}

function bankProcessor(profile: AccountProfile, token: string) {
  const account = settlementBankAccount(profile);
  return {
    token,
    currency: profile.currency,
    nickname: label(profile, 'Bank (ACH/EFT) processor'),
    account_type: 'checking',
    routing_number: account.routing_number,
    masked_account_number: account.masked_account_number,
    routing_account_hash_function: account.routing_account_hash_function,
    routing_account_hash: account.routing_account_hash,
    reference_token: null,
    gl_number: null,
    // The account's name and number in another system: none is held here.
    external_name: null,
    external_number: null,
    is_default: true,
    address: profileAddress(profile),
    deposit_account_masked_number: account.masked_account_number,
    deposit_account_routing_number: account.routing_number,
  };
}
