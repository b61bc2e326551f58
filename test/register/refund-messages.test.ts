import { describe, expect, it } from 'vitest';
import { refundFailureMessage } from '../../src/engine/register/messages';

describe("what the register tells a cashier when a refund to a card or gift card fails", () => {
  it('never advises cash when the money may have gone back already: refunded elsewhere, or the hub (which decides) out of reach', () => {
    for (const code of ['amount_exceeds_refundable', 'nothing_to_refund', 'transaction_already_voided', 'hub_unreachable', 'hub_refused']) {
      const said = refundFailureMessage(code, 'Card ending 0006');
      expect(said, code).toContain('Do not give it in cash');
      expect(said, code).not.toContain('give the money back in cash');
    }
  });

  it('offers cash where the money surely did not go back: a decline, a spent gift card', () => {
    expect(refundFailureMessage('declined', 'Card ending 0006')).toContain('give the money back in cash');
    expect(refundFailureMessage('insufficient_funds', 'Gift card ending 0013')).toContain('Give the money back in cash');
  });
});
