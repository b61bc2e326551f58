import { isEngineError } from '../../src/engine/errors';
import type { Register } from '../../src/engine/register';
import type { Sale, TenderInput } from '../../src/shared/schemas/register';
import { extendHarness, openHarness, TEST_TOKEN, type Harness } from './harness';
import { FakeTerminal } from './terminal';

export { AMEX, VISA, VISA_DECLINE } from './cards';

export interface RegisterRig extends Harness {
  register: Register;
  terminal: FakeTerminal;
  /** The sample cashier's shift on lane 1. */
  shift: string;
  code: string;
  /** Starts a sale with the given scans (product codes or barcodes). */
  sale(...scans: string[]): Promise<Sale>;
  tender(sale: Sale, input: Omit<TenderInput, 'shift'>): ReturnType<Register['tender']>;
}

/** The register rig: the harness with the fake terminal on lane 1 and the sample cashier signed in there. */
export async function openRegister(options: { timezone?: string } = {}): Promise<RegisterRig> {
  const terminal = new FakeTerminal();
  const h = await openHarness({ ...options, cardPresent: terminal });
  const { engine } = h.t;
  await engine.lanes.create({ laneid: '1', port_path: '/dev/ttyLANEWAYTEST1', name: 'Front counter' });
  const first = engine.register.firstCashier;
  if (!first) throw new Error('a new sandbox install has a sample cashier');
  const shift = await engine.register.signIn('1', first.code);
  const register = engine.register;
  const rig: RegisterRig = extendHarness<Omit<RegisterRig, keyof Harness>>(h, {
    register,
    terminal,
    shift: shift.id,
    code: first.code,
    async sale(...scans: string[]) {
      let sale = (await register.startSale({ shift: rig.shift })).sale;
      for (const scan of scans) sale = await register.addLine(sale.id, { shift: rig.shift, scan });
      return sale;
    },
    tender: (sale: Sale, input: Omit<TenderInput, 'shift'>) => register.tender(sale.id, { shift: rig.shift, ...input }, TEST_TOKEN),
  });
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
