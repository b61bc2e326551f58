import type { CardPresentOutcome, CardPresentPort, CardPresentRequest, CardRead } from '../../src/engine/card-present';
import { toCardRead } from '../../src/engine/lanes/card';
import type { DeviceFailure, DeviceFailureCode } from '../../src/engine/lanes/driver-port';
import { checkCardPresentRequest, deviceError } from '../../src/engine/lanes/payments';
import { tipForPercent } from '../../src/terminal/simulator/device';
import { VISA } from './cards';

/** A failure as the serial driver reports it (src/terminal), e.g. `deviceFailure('offline', 'port closed')`. */
export function deviceFailure(code: DeviceFailureCode, message: string): DeviceFailure {
  return Object.assign(new Error(message), { deviceCode: code });
}

/**
 * The one fake lane terminal: the real CardPresentPort interface, scripted per test (which card the
 * customer presents, which device failure happens, when the card is presented). What a lane
 * checks and returns is the engine's own code -- the request checks and the device-failure codes
 * of src/engine/lanes/payments.ts, the card shaping of src/engine/lanes/card.ts -- and a tip is the
 * simulator's `--tip` rule, so the double cannot drift from the lanes it stands for. The serial path itself is covered by
 * test/serial and the end-to-end tests (the real simulator on a socat pair).
 */
export class FakeTerminal implements CardPresentPort {
  reads: CardPresentRequest[] = [];
  completions: Array<{ request: CardPresentRequest; outcome: CardPresentOutcome }> = [];
  pan = VISA;
  expiryMonth = '12';
  expiryYear = '2030';
  entryMode: CardRead['entryMode'] = 'chip';
  cvm: CardRead['cvm'] = 'pin';
  /**
   * What readCard fails with: a driver failure (`deviceFailure('offline', ...)`), turned into the
   * port's error by the lanes' own mapping, or an engine error as is.
   */
  readError: Error | undefined;
  /** What complete fails with (the device could not confirm the outcome), mapped the same way. */
  completeError: Error | undefined;
  /** The signature the customer gives when an approved payment asks for one. */
  signature: { mediaType: string; data: string } | undefined;
  /** A tip the customer adds on the device, in percent of the amount (the simulator's `--tip`). */
  tipPercent = 0;
  /** Resolved by the test to let the customer present the card. */
  gate: Promise<void> = Promise.resolve();

  async readCard(request: CardPresentRequest): Promise<CardRead> {
    checkCardPresentRequest(request);
    this.reads.push(request);
    await this.gate;
    if (this.readError) throw deviceError(this.readError, request.laneId);
    return toCardRead(
      {
        entryMode: this.entryMode,
        pan: this.pan,
        expMonth: this.expiryMonth,
        expYear: this.expiryYear,
        name: 'CHIP HOLDER',
        cvm: this.cvm,
        emv: { aid: 'A0000000031010', applicationLabel: 'VISA CREDIT', tvr: '0000008000', tsi: 'E800' },
        tipCents: tipForPercent(request.amountCents, this.tipPercent),
      },
      request.enableManualEntry,
    );
  }

  async complete(request: CardPresentRequest, outcome: CardPresentOutcome) {
    this.completions.push({ request, outcome });
    if (this.completeError) throw deviceError(this.completeError, request.laneId);
    return this.signature && outcome.approved ? { signature: this.signature } : {};
  }
}
