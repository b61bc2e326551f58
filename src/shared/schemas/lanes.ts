import { Type, type SchemaOptions, type Static, type TLiteral, type TLiteralValue, type TSchema, type TUnion } from '@sinclair/typebox';
import { component } from './components';

/** Lanes: the card-present payment devices on this machine's serial ports. */
export const LANE_STATUSES = ['connected', 'busy', 'offline', 'disabled'] as const;
export const LANE_ACTIVITIES = ['idle', 'waiting_for_card', 'reading', 'pin', 'manual_entry', 'tip', 'authorizing', 'signature', 'result', 'setup'] as const;
export const BAUD_RATES = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600] as const;
export const TERMINAL_COMMANDS = ['DeviceSetup', 'RequestSignature', 'Cancel', 'DeviceStatus'] as const;

type LiteralTuple<T extends readonly TLiteralValue[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/** A union of literals from a constant list, keeping the literal types. */
export function literals<const T extends readonly TLiteralValue[]>(values: T, options: SchemaOptions = {}): TUnion<LiteralTuple<T> & TSchema[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<LiteralTuple<T> & TSchema[]>;
}

export const LaneId = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$',
  description: 'Lane identifier (1 to 32 letters, digits, `_`, `.`, `-`), as sent in `terminal.laneid`.',
  examples: ['1'],
});

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const LaneTip = component(
  'LaneTip',
  Type.Object(
    {
      enabled: Type.Boolean({ description: 'The device asks for a tip on sales.' }),
      percentages: Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), { maxItems: 4, description: 'Up to four suggested tips, in percent.' }),
    },
    { additionalProperties: false },
  ),
);

export const LaneSignature = component(
  'LaneSignature',
  Type.Object(
    {
      capture: literals(['on_device', 'paper', 'off'] as const, {
        description: '`on_device`: when the card asks for a signature the customer signs on the device and the image is stored with the transaction; `paper`: the receipt carries a signature line; `off`: no signature.',
      }),
      min_amount_cents: Type.Integer({ minimum: 0, description: 'No signature is asked below this amount.' }),
    },
    { additionalProperties: false },
  ),
);

const Parity = literals(['none', 'even', 'odd', 'mark', 'space'] as const);
const Currency = literals(['usd', 'cad', 'eur', 'gbp', 'aud'] as const);

const configFields = {
  name: Type.String({ minLength: 1, maxLength: 64, description: 'Shown on the device and in the screens.' }),
  port_path: Type.String({ minLength: 1, maxLength: 256, pattern: '^[^\\u0000]+$', description: 'Serial port of the device on this machine: `/dev/tty*` (e.g. `/dev/ttyUSB0`), `/dev/pts/*`, `/dev/serial/*`, `COM3` on Windows, or a link that resolves to one of those. Anything else is 400 `invalid_port_path`. One lane per port.' }),
  baud_rate: literals(BAUD_RATES, { description: 'Default 115200.' }),
  data_bits: literals([5, 6, 7, 8] as const, { description: 'Default 8.' }),
  parity: Parity,
  stop_bits: literals([1, 1.5, 2] as const, { description: 'Default 1.' }),
  currency: Currency,
  enabled: Type.Boolean({ description: 'A disabled lane keeps its settings but its port is not opened.' }),
  tip: LaneTip,
  signature: LaneSignature,
  card_timeout_s: Type.Integer({ minimum: 10, maximum: 300, description: 'How long the device waits for the customer\'s card (default 90 s).' }),
};

export const LaneCreate = Type.Object(
  {
    laneid: LaneId,
    port_path: configFields.port_path,
    name: Type.Optional(configFields.name),
    baud_rate: Type.Optional(configFields.baud_rate),
    data_bits: Type.Optional(configFields.data_bits),
    parity: Type.Optional(Parity),
    stop_bits: Type.Optional(configFields.stop_bits),
    currency: Type.Optional(Currency),
    enabled: Type.Optional(configFields.enabled),
    tip: Type.Optional(LaneTip),
    signature: Type.Optional(LaneSignature),
    card_timeout_s: Type.Optional(configFields.card_timeout_s),
  },
  { additionalProperties: false },
);
export type LaneCreate = Static<typeof LaneCreate>;

export const LanePatch = Type.Object(
  {
    port_path: Type.Optional(configFields.port_path),
    name: Type.Optional(configFields.name),
    baud_rate: Type.Optional(configFields.baud_rate),
    data_bits: Type.Optional(configFields.data_bits),
    parity: Type.Optional(Parity),
    stop_bits: Type.Optional(configFields.stop_bits),
    currency: Type.Optional(Currency),
    enabled: Type.Optional(configFields.enabled),
    tip: Type.Optional(LaneTip),
    signature: Type.Optional(LaneSignature),
    card_timeout_s: Type.Optional(configFields.card_timeout_s),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type LanePatch = Static<typeof LanePatch>;

export const LaneLastPayment = Type.Object({
  request_id: Type.String({ description: 'The card-present request id of the payment (the transaction it belongs to).' }),
  kind: literals(['sale', 'auth', 'capture', 'refund', 'credit'] as const),
  amount_cents: Type.Integer(),
  approved: Type.Boolean(),
  signature: Type.Boolean({ description: 'A signature image is stored for it.' }),
  at: Type.String({ format: 'date-time' }),
});

export const Lane = component(
  'Lane',
  Type.Object({
    laneid: LaneId,
    name: configFields.name,
    port_path: configFields.port_path,
    baud_rate: configFields.baud_rate,
    data_bits: configFields.data_bits,
    parity: Parity,
    stop_bits: configFields.stop_bits,
    currency: Currency,
    enabled: Type.Boolean(),
    tip: LaneTip,
    signature: LaneSignature,
    card_timeout_s: configFields.card_timeout_s,
    status: literals(LANE_STATUSES, {
      description: '`connected`: the device answers and is idle; `busy`: a payment or command holds it; `offline`: the port is missing or the device does not answer (the driver keeps retrying); `disabled`.',
    }),
    activity: literals(LANE_ACTIVITIES, { description: 'What the device is doing now.' }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'The last problem seen on this lane (kept after it recovers).' }),
    last_error_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    connected_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the device last came online.' }),
    firmware: nullableString,
    model: nullableString,
    serial_number: nullableString,
    last_setup_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When DeviceSetup last succeeded.' }),
    last_payment: Type.Union([LaneLastPayment, Type.Null()], { description: 'The last card-present payment completed on this lane: RequestSignature applies to it.' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    watermark: Type.Integer({ minimum: 0 }),
  }),
);
export type Lane = Static<typeof Lane>;

export const LaneList = Type.Object({ lanes: Type.Array(Lane) });

export const LaneParams = Type.Object({ laneid: LaneId });

export const LaneDeleted = Type.Object({ laneid: LaneId, deleted: Type.Literal(true) });

export const TerminalRequest = component(
  'TerminalRequest',
  Type.Object(
    {
      laneid: Type.String({ minLength: 1, maxLength: 32, description: 'Pre-configured lane identifier' }),
      command: literals(TERMINAL_COMMANDS, { description: 'Supported terminal command' }),
    },
    { examples: [{ laneid: '1', command: 'DeviceSetup' }] },
  ),
);
export type TerminalRequest = Static<typeof TerminalRequest>;

export const TerminalResponse = component(
  'TerminalResponse',
  Type.Object({
    success: Type.Boolean({ description: 'true|false' }),
    laneid: Type.Optional(Type.String()),
    command: Type.Optional(literals(TERMINAL_COMMANDS)),
    status: Type.Optional(literals(LANE_STATUSES, { description: 'The lane\'s status after the command.' })),
    errors: Type.Optional(Type.Array(Type.String(), { description: 'With success false: a stable code (`lane_offline`, `device_busy`, `timeout`, `cancelled`, `device_error`, `no_payment`).' })),
    error: Type.Optional(Type.String()),
    device: Type.Optional(
      Type.Object({
        online: Type.Boolean(),
        firmware: Type.String(),
        model: Type.String(),
        serial_number: Type.String(),
        card_inserted: Type.Boolean(),
        busy: Type.Boolean(),
      }),
    ),
    signature: Type.Optional(
      Type.Object({
        request_id: Type.String({ description: 'The payment the signature was stored on.' }),
        media_type: Type.String(),
        bytes: Type.Integer(),
      }),
    ),
    cancel_result: Type.Optional(
      literals(['cancelled', 'voiding', 'idle'] as const, {
        description: '`cancelled`: a payment waiting for the card was stopped before reaching the card network; `voiding`: the payment had reached the card network, so it will be voided instead; `idle`: nothing was in progress.',
      }),
    ),
  }),
);
export type TerminalResponse = Static<typeof TerminalResponse>;
