import { openTestEngine, type TestEngine } from '../helpers/engine';
import { startApi, type ApiClient } from '../helpers/http';
import { fail, isEngineError } from '../../src/engine/errors';
import type { CardPresentOutcome, CardPresentPort, CardPresentRequest, CardRead } from '../../src/engine/card-present';
import type { Register } from '../../src/engine/register';
import type { Sale, TenderInput } from '../../src/shared/schemas/register';

export const VISA = '4895281000000006';
export const VISA_DECLINE = '4264280001234500';
export const AMEX = '341111597242000';

/**
 * A lane's terminal behind the real CardPresentPort interface, scripted per test: which card the
 * customer presents, or which device failure happens. The serial path itself is covered by
 * test/serial and by the end-to-end tests (real simulator on a socat pair).
 */
export class ScriptedTerminal implements CardPresentPort {
  reads: CardPresentRequest[] = [];
  completions: Array<{ request: CardPresentRequest; outcome: CardPresentOutcome }> = [];
  pan = VISA;
  cvm: CardRead['cvm'] = 'pin';
  failure: { code: string; message: string } | undefined;
  signature: { mediaType: string; data: string } | undefined;
  /** A tip the customer adds on the device, in percent of the amount (the simulator's `--tip`), rounded half up. */
  tipPercent = 0;
  /** Resolved by the test to let the customer present the card. */
  gate: Promise<void> = Promise.resolve();

  async readCard(request: CardPresentRequest): Promise<CardRead> {
    // What the lanes accept (src/engine/lanes/payments.ts): a gateway key must reach them in this form.
    if (!/^[A-Za-z0-9._-]{1,56}$/.test(request.requestId)) throw fail.invalid('invalid_request_id', 'The card-present request id must be 1 to 56 letters, digits, `.`, `_` or `-`');
    this.reads.push(request);
    await this.gate;
    if (this.failure) throw fail.gateway(this.failure.code, this.failure.message);
    return {
      entryMode: 'chip',
      pan: this.pan,
      expiryMonth: '12',
      expiryYear: '2030',
      cardholderName: 'CHIP HOLDER',
      cvm: this.cvm,
      ...(this.tipPercent ? { tipCents: Math.round((request.amountCents * this.tipPercent) / 100) } : {}),
      emv: { aid: 'A0000000031010', applicationLabel: 'VISA CREDIT', tvr: '0000008000', tsi: 'E800' },
    };
  }

  async complete(request: CardPresentRequest, outcome: CardPresentOutcome) {
    this.completions.push({ request, outcome });
    return this.signature && outcome.approved ? { signature: this.signature } : {};
  }
}

export interface RegisterRig {
  t: TestEngine;
  register: Register;
  terminal: ScriptedTerminal;
  /** The sample cashier's shift on lane 1. */
  shift: string;
  code: string;
  api: ApiClient | undefined;
  startApi(): Promise<ApiClient>;
  /** Starts a sale with the given scans (product codes or barcodes). */
  sale(...scans: string[]): Promise<Sale>;
  tender(sale: Sale, input: Omit<TenderInput, 'shift'>): ReturnType<Register['tender']>;
  close(): Promise<void>;
}

export async function openRegister(options: { timezone?: string } = {}): Promise<RegisterRig> {
  const t = await openTestEngine(options.timezone ? { timezone: options.timezone } : {});
  const terminal = new ScriptedTerminal();
  t.engine.gateway.setCardPresent(terminal);
  await t.engine.lanes.create({ laneid: '1', port_path: '/dev/ttyLANEWAYTEST1', name: 'Front counter' });
  const first = t.engine.register.firstCashier;
  if (!first) throw new Error('a new sandbox install has a sample cashier');
  const shift = await t.engine.register.signIn('1', first.code);
  const rig: RegisterRig = {
    t,
    register: t.engine.register,
    terminal,
    shift: shift.id,
    code: first.code,
    api: undefined,
    async startApi() {
      rig.api = await startApi(t.engine);
      return rig.api;
    },
    async sale(...scans) {
      let sale = (await rig.register.startSale({ shift: rig.shift })).sale;
      for (const scan of scans) sale = await rig.register.addLine(sale.id, { shift: rig.shift, scan });
      return sale;
    },
    tender: (sale, input) => rig.register.tender(sale.id, { shift: rig.shift, ...input }, 'TESTTOKEN0001'),
    async close() {
      await rig.api?.close();
      await t.close();
    },
  };
  return rig;
}

/** The engine error code a promise fails with, or "no error". */
export async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (isEngineError(err)) return err.code;
    throw err;
  }
  return 'no error';
}
