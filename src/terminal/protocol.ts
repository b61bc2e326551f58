import { Type, type Static, type TLiteral, type TLiteralValue, type TSchema, type TUnion } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * The application messages carried in DATA frames: one UTF-8 JSON object each, `t` naming the
 * message. Every host request carries a request id (`rid`); the device answers it exactly once
 * with a final message carrying the same `rid` (progress messages may come before). The device
 * remembers its recent final answers by rid: a request repeated with a rid it has answered gets
 * the same answer again, never a second run, and `recall` asks for an answer that was lost.
 * docs/terminal-protocol.md describes every message.
 */
const Rid = Type.String({ pattern: '^[A-Za-z0-9._:/-]{1,80}$' });
const Currency = Type.String({ pattern: '^[A-Za-z]{3}$' });
const Text = (max: number) => Type.String({ maxLength: max });
export const PAYMENT_KINDS = ['sale', 'auth', 'capture', 'refund', 'credit'] as const;
export const ENTRY_MODES = ['chip', 'contactless', 'swipe', 'manual'] as const;
export const CVMS = ['pin', 'signature', 'none'] as const;
export const STAGES = ['insert_card', 'reading', 'pin', 'manual_entry', 'tip', 'signature', 'result'] as const;
export const FAILURE_REASONS = ['busy', 'cancelled', 'card_removed', 'timeout', 'error', 'unsupported'] as const;
type LiteralTuple<T extends readonly TLiteralValue[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };
const literalUnion = <const T extends readonly TLiteralValue[]>(values: T) =>
  Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<LiteralTuple<T> & TSchema[]>;

export const SignatureSettings = Type.Object({
  /** on_device: the customer signs on the device's screen; paper: the receipt has a signature line. */
  capture: Type.Union([Type.Literal('on_device'), Type.Literal('paper'), Type.Literal('off')]),
  /** No signature is asked below this amount. */
  min_amount_cents: Type.Integer({ minimum: 0 }),
});

export const TipSettings = Type.Object({
  enabled: Type.Boolean(),
  percentages: Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), { maxItems: 4 }),
});

const ImageData = {
  media_type: Type.Union([Type.Literal('image/svg+xml'), Type.Literal('image/png')]),
  /** Base64 of the image. */
  data: Type.String({ maxLength: 6000, pattern: '^[A-Za-z0-9+/=]*$' }),
};

// Host -> device.
export const HostMessage = Type.Union([
  /** `info`: include firmware, model and serial (the handshake); otherwise the answer is compact. */
  Type.Object({ t: Type.Literal('status'), rid: Rid, info: Type.Optional(Type.Boolean()) }),
  Type.Object({
    t: Type.Literal('setup'),
    rid: Rid,
    lane_name: Text(64),
    merchant_name: Text(64),
    currency: Currency,
    tip: TipSettings,
    signature: SignatureSettings,
  }),
  Type.Object({
    t: Type.Literal('read'),
    rid: Rid,
    kind: literalUnion(PAYMENT_KINDS),
    amount_cents: Type.Integer({ minimum: 0 }),
    currency: Currency,
    manual_entry: Type.Boolean(),
    tip: Type.Boolean(),
    timeout_s: Type.Integer({ minimum: 1, maximum: 600 }),
  }),
  Type.Object({
    t: Type.Literal('result'),
    rid: Rid,
    of: Rid,
    approved: Type.Boolean(),
    message: Text(40),
    auth_code: Type.Optional(Text(12)),
    signature: Type.Boolean(),
    timeout_s: Type.Integer({ minimum: 1, maximum: 600 }),
  }),
  Type.Object({ t: Type.Literal('signature'), rid: Rid, timeout_s: Type.Integer({ minimum: 1, maximum: 600 }) }),
  Type.Object({ t: Type.Literal('cancel'), rid: Rid }),
  Type.Object({ t: Type.Literal('recall'), rid: Rid }),
]);
export type HostMessage = Static<typeof HostMessage>;

// Device -> host.
export const DeviceMessage = Type.Union([
  Type.Object({ t: Type.Literal('hello'), boot: Text(32), firmware: Text(32), model: Text(32), serial: Text(32) }),
  Type.Object({
    t: Type.Literal('status'),
    rid: Rid,
    boot: Text(32),
    firmware: Type.Optional(Text(32)),
    model: Type.Optional(Text(32)),
    serial: Type.Optional(Text(32)),
    card_inserted: Type.Boolean(),
    busy: Type.Boolean(),
  }),
  Type.Object({ t: Type.Literal('ok'), rid: Rid }),
  Type.Object({ t: Type.Literal('progress'), rid: Rid, stage: literalUnion(STAGES) }),
  Type.Object({
    t: Type.Literal('card'),
    rid: Rid,
    entry_mode: literalUnion(ENTRY_MODES),
    pan: Type.String({ pattern: '^[0-9]{12,19}$' }),
    exp_month: Type.String({ pattern: '^(0[1-9]|1[0-2])$' }),
    exp_year: Type.String({ pattern: '^20[0-9]{2}$' }),
    name: Type.Optional(Text(26)),
    cvm: literalUnion(CVMS),
    emv: Type.Optional(
      Type.Object({
        aid: Type.String({ pattern: '^[0-9A-F]{10,32}$' }),
        label: Text(16),
        tvr: Type.String({ pattern: '^[0-9A-F]{10}$' }),
        tsi: Type.String({ pattern: '^[0-9A-F]{4}$' }),
      }),
    ),
    tip_cents: Type.Integer({ minimum: 0 }),
  }),
  Type.Object({
    t: Type.Literal('done'),
    rid: Rid,
    signature: Type.Optional(Type.Object(ImageData)),
    /** Why a signature that was asked for is missing (the customer did not sign in time...). */
    signature_missing: Type.Optional(literalUnion(FAILURE_REASONS)),
  }),
  Type.Object({ t: Type.Literal('signature'), rid: Rid, ...ImageData }),
  Type.Object({ t: Type.Literal('cancelled'), rid: Rid, active: Type.Boolean() }),
  Type.Object({ t: Type.Literal('failed'), rid: Rid, reason: literalUnion(FAILURE_REASONS), message: Type.Optional(Text(80)) }),
  Type.Object({ t: Type.Literal('pending'), rid: Rid }),
  Type.Object({ t: Type.Literal('unknown'), rid: Rid }),
]);
export type DeviceMessage = Static<typeof DeviceMessage>;
export type FailureReason = (typeof FAILURE_REASONS)[number];
export type Stage = (typeof STAGES)[number];

export function encodeMessage(message: HostMessage | DeviceMessage): Buffer {
  return Buffer.from(JSON.stringify(message), 'utf8');
}

/**
 * Parses and checks a payload; undefined when it is not a message of the expected side. The
 * payload is zeroed afterwards (it may hold card data). Never throws and never echoes the
 * payload: a malformed message must not put card data into an error or a log.
 */
function parse<T>(schema: TSchema, payload: Buffer): T | undefined {
  try {
    const value: unknown = JSON.parse(payload.toString('utf8'));
    return Value.Check(schema, value) ? (value as T) : undefined;
  } catch {
    return undefined;
  } finally {
    payload.fill(0);
  }
}

export const parseDeviceMessage = (payload: Buffer) => parse<DeviceMessage>(DeviceMessage, payload);
export const parseHostMessage = (payload: Buffer) => parse<HostMessage>(HostMessage, payload);
