/**
 * The supplier account this install serves: its profile (what GET /api/whoami shows) and its
 * capability flags (which optional features are on, and which validation rules apply).
 */
export const CAPABILITIES = [
  'orders',
  'order_transactions',
  'wallets',
  'gift_cards',
  'card_present_emv',
  'settlement_reporting',
  'reference_data',
  'onboarding',
  'autopay',
  'divisions_required',
  'payment_plans',
  'balance_sync',
  'discounts',
  'line_item_short_pay',
  'restricted_grouping',
  'dynamic_division_creation',
] as const;

export type Capability = (typeof CAPABILITIES)[number];
export type Capabilities = Record<Capability, boolean>;

export type Environment = 'sandbox' | 'production';

export interface AccountProfile {
  token: string;
  name: string;
  sender_identifier: string;
  environment: Environment;
  currency: 'usd' | 'cad' | 'eur' | 'gbp' | 'aud';
  preferred_language: 'en' | 'fr' | 'es';
  business_number: string | null;
  address_1: string | null;
  address_2: string | null;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  external_link: string | null;
  branding_partner: string | null;
  branding_partner_config: string | null;
  /** IANA zone of the shop: processing days, due dates and aging are counted in it. */
  timezone: string;
  /** Local time (HH:MM) at which the processing day closes and the card batch is transmitted. */
  processing_cutoff: string;
  /**
   * The processing day that was open when `timezone` or `processing_cutoff` last changed, with the
   * cut-off instant (ms) it keeps: the change counts from the day after it (gateway/processing-day.ts).
   */
  processing_day_kept?: { date: string; cutoff_at: number };
  /** Days after which an uncaptured card authorization is released (the issuer's 2..14). */
  authorization_hold_days: number;
  capabilities: Capabilities;
  /**
   * The processors' settlement tokens (gateway/settlement-tokens.ts), fixed when the account is
   * made: the reference's form, two letters and ten (`MA1F8B2E87AM`, `^[0-9A-Z]{12}$`). Absent
   * on an account made before them, whose transactions and batches carry its earlier tokens.
   */
  settlement_tokens?: { card: string; bank: string; terminal: string; gift: string };
  created_at: string;
  updated_at: string;
}

/**
 * A new sandbox install turns on every feature area, and leaves off the flags that add required
 * fields (divisions, payment plans, balance sync...), so a first client can call any operation.
 */
export const DEFAULT_CAPABILITIES: Capabilities = {
  orders: true,
  order_transactions: true,
  wallets: true,
  gift_cards: true,
  card_present_emv: true,
  settlement_reporting: true,
  reference_data: true,
  onboarding: true,
  autopay: true,
  divisions_required: false,
  payment_plans: false,
  balance_sync: false,
  discounts: false,
  line_item_short_pay: false,
  restricted_grouping: false,
  dynamic_division_creation: false,
};

export function defaultProfile(token: string, at: string, timezone: string): AccountProfile {
  return {
    token,
    name: 'Laneway Sandbox Store',
    sender_identifier: 'lanewaysandbox',
    environment: 'sandbox',
    currency: 'usd',
    preferred_language: 'en',
    business_number: null,
    address_1: null,
    address_2: null,
    postal_code: null,
    city: null,
    province: null,
    country: 'US',
    external_link: null,
    branding_partner: null,
    branding_partner_config: null,
    timezone,
    processing_cutoff: '23:00',
    authorization_hold_days: 7,
    capabilities: { ...DEFAULT_CAPABILITIES },
    settlement_tokens: { card: `MA${token.slice(0, 10)}`, bank: `BA${token.slice(0, 10)}`, terminal: `TP${token.slice(0, 10)}`, gift: `GC${token.slice(0, 10)}` },
    created_at: at,
    updated_at: at,
  };
}

export type ProfilePatch = Partial<Omit<AccountProfile, 'token' | 'capabilities' | 'settlement_tokens' | 'processing_day_kept' | 'created_at' | 'updated_at'>> & {
  capabilities?: Partial<Capabilities>;
};
