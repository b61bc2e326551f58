import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../src/engine/logger';
import { maskPan, redactPans, luhnValid } from '../../src/engine/security/card-data';
import { openTestEngine, type TestEngine, startApi } from '../helpers/harness';
import { tempDir } from '../helpers/tmp';

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const flush = () => new Promise((r) => setTimeout(r, 300));

describe('logs never hold card data or credentials', () => {
  it('masks card numbers by key and by pattern, keeps other numbers', async () => {
    const tmp = tempDir();
    try {
      const logger = createLogger({ directory: tmp.dir, level: 'debug' });
      logger.info({ card_number: '4895281000000006', cvv: '123', order: 'ORD-12', note: 'card 5541 0320 0000 4422 used' }, 'paid with 6011000990911111');
      logger.flush();
      await flush();
      const text = readFileSync(join(tmp.dir, 'laneway.log'), 'utf8');
      for (const pan of ['4895281000000006', '5541 0320 0000 4422', '6011000990911111']) expect(text).not.toContain(pan);
      expect(text).toContain('601100******1111');
      expect(text).toContain('ORD-12');
      expect(text).not.toContain('"123"');
    } finally {
      tmp.cleanup();
    }
  });

  it('request logs carry no Authorization header and no card number from the URL', async () => {
    t = await openTestEngine();
    const api = await startApi(t.engine);
    try {
      await fetch(`${api.url}/api/whoami?note=4895281000000006`, { headers: { Authorization: 'Basic c2VjcmV0OnNlY3JldA==' } });
      await fetch(`${api.url}/api/no-route/4895281000000006`);
    } finally {
      await api.close();
    }
    t.engine.logger.flush();
    await flush();
    const text = readFileSync(join(t.dir, 'logs', 'laneway.log'), 'utf8');
    expect(text).toContain('"request"');
    expect(text).not.toContain('4895281000000006');
    expect(text).not.toContain('c2VjcmV0OnNlY3JldA==');
  });

  it('masking rules', () => {
    expect(maskPan('341111597242000')).toBe('341111*****2000');
    expect(luhnValid('4895281000000006')).toBe(true);
    expect(luhnValid('4895281000000007')).toBe(false);
    // Not Luhn-valid: an order number or a timestamp stays readable.
    expect(redactPans('order 1234567890123')).toBe('order 1234567890123');
    // However it is grouped: spaces, no-break spaces, dashes, dots.
    for (const written of ['4895 2810 0000 0006', '4895\u00a02810\u00a00000\u00a00006', '4895-2810-0000-0006', '4895.2810.0000.0006'])
      expect(redactPans(`card ${written}.`)).toBe('card 489528******0006.');
    // An amount with cents is not a card number.
    expect(redactPans('total 1234.56')).toBe('total 1234.56');
  });
});
