import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { uid } from '../helpers/receivables';
import { importCsv } from './upload';

const ctx = useHarness({ api: true });

describe('CSV imports: each file kind through the rules of its JSON import', () => {
  it('imports customers with their contacts on following rows', async () => {
    const c = uid('C');
    const csv = `identifier,name,email,contacts.email,contacts.first_name\r\n${c},"Acme, Inc.",ap@acme.test,ann@acme.test,Ann\r\n,,,bob@acme.test,Bob\r\n`;
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ status: 'completed', kind: 'customers', result_message: '1 customer', file_errors_count: 0 });
    const view = await ctx.api.get<{ name: string; contacts: Array<{ email: string }> }>(`/api/exports/customer/${c}`);
    expect(view.body.name).toBe('Acme, Inc.');
    expect(view.body.contacts.map((x) => x.email).sort()).toEqual(['ann@acme.test', 'ap@acme.test', 'bob@acme.test']);
  });
});
