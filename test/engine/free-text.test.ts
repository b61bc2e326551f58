import { describe, expect, it } from 'vitest';
import { maskCardNumbersInFreeText } from '../../src/engine/security/card-data';

describe('card numbers in free text', () => {
  it('keeps a Luhn-valid run no card can open with (an ERP invoice number), and masks the ones that can', () => {
    const body = {
      // 2026 001 68520891 passes Luhn, but 2026 is no issuer's (Mastercard's 2-series is 2221-2720).
      number: 'INV/2026/001#68520891',
      zero: 'REF 0000-0000-0000-0000',
      seven: '7000 0000 0000 0005',
      nine: '9000/0000/0000/0001',
      mastercard2: 'card 2223 0000 4840 0011',
      visa: 'INV/4895/2810#00000006',
    };
    expect(maskCardNumbersInFreeText(body)).toEqual({
      number: 'INV/2026/001#68520891',
      zero: 'REF 0000-0000-0000-0000',
      seven: '7000 0000 0000 0005',
      nine: '9000/0000/0000/0001',
      mastercard2: 'card 222300******0011',
      visa: 'INV/489528******0006',
    });
  });

  it('masks them in every string of a body, at any depth, but not in the fields that carry a number on purpose', () => {
    const body = {
      notes: 'pay with 4111-1111-1111-1111 please',
      lines: [{ description: 'ref 5105105105105100' }, '6011111111111117'],
      phone: '16135550123',
      order_number: '4111111111111112',
      credit_card: { card_number: '4111111111111111', cvv: '123' },
      bank_account: { account_number: '0000000016' },
      attachment: { content: 'JVBERi0xLjQK4111111111111111AAAA' },
    };
    expect(maskCardNumbersInFreeText(body)).toEqual({
      notes: 'pay with 411111******1111 please',
      lines: [{ description: 'ref 510510******5100' }, '601111******1117'],
      // Not card numbers: too short, or failing Luhn.
      phone: '16135550123',
      order_number: '4111111111111112',
      credit_card: { card_number: '4111111111111111', cvv: '123' },
      bank_account: { account_number: '0000000016' },
      attachment: { content: 'JVBERi0xLjQK4111111111111111AAAA' },
    });
  });

  it('masks a card number however its digits are grouped: any white space, slashes, underscores, any dash, full-width digits, beside its expiry', () => {
    const fullWidth = '4895281000000006'.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)));
    const written = ['4895  2810  0000  0006', '4895\t2810\t0000\t0006', '4895\n2810\n0000\n0006', '4895/2810/0000/0006', '4895_2810_0000_0006', '4895\u20102810\u20100000\u20100006', fullWidth];
    for (const w of written) expect(maskCardNumbersInFreeText({ notes: `paid with ${w}` }), JSON.stringify(w)).toEqual({ notes: 'paid with 489528******0006' });
    // Beside other numbers: the card is masked, they are kept.
    expect(maskCardNumbersInFreeText({ notes: '4895 2810 0000 0006 12/30' })).toEqual({ notes: '489528******0006 12/30' });
    expect(maskCardNumbersInFreeText({ notes: 'ref 12 5541/0320/0000/4422' })).toEqual({ notes: 'ref 12 554103******4422' });
    // An id of digit groups is a UUID, not a card: kept whole.
    const uuid = '00000000-0000-4000-8000-000000000006';
    expect(maskCardNumbersInFreeText({ message: `No application ${uuid}` })).toEqual({ message: `No application ${uuid}` });
    expect(maskCardNumbersInFreeText({ notes: 'dated 2026-03-01 12:30:45, order 1234 qty 5' })).toEqual({ notes: 'dated 2026-03-01 12:30:45, order 1234 qty 5' });
  });

  it('masks a card number grouped by brackets or quotes, and a security code named beside it', () => {
    for (const w of ['(4895) 2810-0000-0006', '[4895]2810[0000]0006', '4895"2810"0000"0006', "4895'2810'0000'0006", '{4895}{2810}{0000}{0006}', '<4895><2810><0000><0006>', '\u201c4895\u201d2810 0000 0006']) {
      const masked = maskCardNumbersInFreeText({ telephone: w }).telephone;
      expect(masked, JSON.stringify(w)).toContain('489528******0006');
      expect(masked.replace(/\D/g, '')).toBe('4895280006');
    }
    expect(maskCardNumbersInFreeText({ notes: 'card 489528******0006 cvv 917, CVC2: 9731, security code is 123' })).toEqual({ notes: 'card 489528******0006 cvv ***, CVC2: ***, security code is ***' });
    // Brackets around a long number are prose: an invoice number beside an amount stays whole.
    expect(maskCardNumbersInFreeText({ message: 'invoice INV122579377 (12000) is more than its amount' })).toEqual({ message: 'invoice INV122579377 (12000) is more than its amount' });
    // A three-digit number no word names a security code is kept, as are words that only start alike.
    expect(maskCardNumbersInFreeText({ notes: 'qty 917, cvvx 123, bus 4 csci 101, phone (555) 123-4567' })).toEqual({ notes: 'qty 917, cvvx 123, bus 4 csci 101, phone (555) 123-4567' });
  });

  it('reads digits of any script alike however many of them a body holds, and finds a card among short groups on both sides', () => {
    const bold = '4895281000000006'.replace(/\d/g, (d) => String.fromCodePoint(0x1d7ce + Number(d)));
    const arabic = '5541032000004422'.replace(/\d/g, (d) => String.fromCodePoint(0x660 + Number(d)));
    expect(maskCardNumbersInFreeText({ a: `x ${bold} y`, b: `${arabic}`, c: `${bold} ${bold}` })).toEqual({ a: 'x 489528******0006 y', b: '554103******4422', c: '489528******0006 489528******0006' });
    expect(maskCardNumbersInFreeText({ notes: '7 3 4895 2810 0000 0006 1 2' })).toEqual({ notes: '7 3 489528******0006 1 2' });
    // A long run of single digits holds no card number: kept as sent.
    const digits = '1 '.repeat(5000);
    expect(maskCardNumbersInFreeText({ notes: digits })).toEqual({ notes: digits });
  });

  it('leaves ids this product issued as they are, though a digit run in one passes Luhn', () => {
    // 000000000000026 passes Luhn: masked, the shift no longer named the cashier's session.
    const body = maskCardNumbersInFreeText({ shift: 'R896095X000000000000026', attempt: '4895281000000006ab', reason: 'card 4895281000000006 scratched' });
    expect(body).toEqual({ shift: 'R896095X000000000000026', attempt: '4895281000000006ab', reason: 'card 489528******0006 scratched' });
  });

  it("leaves a lane's sync clock stamp as sent, though its digits read as a card number that passes Luhn", () => {
    // Masked ("001795*********0003@lane:2"), the hub could not read the lane's stamp and merged
    // the lane's edit as if made at its wall-clock time: about one push in ten lost its clock.
    const stamp = '001795762320191.0003@lane:2';
    const body = maskCardNumbersInFreeText({ rows: [{ newDocumentState: { id: 'C1', data: { city: 'Lévis' } }, stamp }] });
    expect(body).toEqual({ rows: [{ newDocumentState: { id: 'C1', data: { city: 'Lévis' } }, stamp }] });
  });

  it('walks a deeply nested body without overflowing the stack', () => {
    let deep: Record<string, unknown> = { note: '4111111111111111' };
    for (let i = 0; i < 50_000; i++) deep = { a: deep };
    expect(() => maskCardNumbersInFreeText(deep)).not.toThrow();
    let inner: Record<string, unknown> = deep;
    while (inner.a) inner = inner.a as Record<string, unknown>;
    expect(inner.note).toBe('411111******1111');
  });
});
