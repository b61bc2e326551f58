import { describe, expect, it } from 'vitest';
import { basicAuth, useHarness } from '../helpers/harness';
import { pdfLayoutText } from '../helpers/pdf';
import { withCapabilities } from '../helpers/receivables';

/**
 * The monthly statement of a shop whose name and address are not in English, over real HTTP:
 * every character the shop typed comes back from the PDF (it printed "??????" before).
 */
const h = useHarness({ api: true });

describe('the statement PDF', () => {
  it('prints a shop name and address in Japanese, Chinese, Korean, Greek, Cyrillic and Arabic as typed', async () => {
    const shop = { name: '田中コーヒー 本店', address_1: '北京市朝阳区建国路88号', address_2: 'شارع الملك فهد', city: 'Αθήνα', province: 'Москва', postal_code: '서울 04524' };
    await h.t.engine.account.update(shop);
    const text = await withCapabilities(h, { settlement_reporting: true }, async () => {
      const res = await fetch(`${h.api.url}/api/gateway/v1/settlement/statements/sample.pdf`, { headers: { Authorization: basicAuth() } });
      expect(res.status).toBe(200);
      return pdfLayoutText(Buffer.from(await res.arrayBuffer())).text;
    });
    for (const s of [shop.name, shop.address_1, shop.address_2, `${shop.city} ${shop.province} ${shop.postal_code}`]) expect(text, s).toContain(s);
    // The footer of every page carries the name too.
    expect(text).toContain(`${shop.name} · Statement sample`);
    expect(text).not.toContain('?');
    expect(text).not.toContain('[U+');
  });
});
