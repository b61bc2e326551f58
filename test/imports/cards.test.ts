import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { getRecord, putRecord, recordId } from '../../src/engine/records';
import { AMEX, MASTERCARD, VISA } from '../helpers/cards';
import { uid } from '../helpers/receivables';
import { importCsv } from './upload';
import { until } from '../serial/helpers';

const ctx = useHarness({ api: true });

const HEADER = 'customer_identifier,name,first_name,last_name,number,expiry,postal_code,create_debit_agreement,auto_debit_reference';

describe('credit card files: tokenized into wallets, echoed masked for 24 hours', () => {
  it('vaults each card into its customer\'s wallet, echoes the lines masked with the tokens, and forgets the echo after 24 h', async () => {
    const c = uid('C');
    const csv = `${HEADER}\n${c},John Doe,John,Doe,${VISA},1230,H0H 0H0,N,POLICY_1\n${c},John Doe,John,Doe,${MASTERCARD},1230,H0H 0H0,N,\n${c},John Doe,John,Doe,4111111111111112,1230,H0H 0H0,N,\n`;
    const batch = await importCsv(ctx.api, csv, { filename: 'cards.csv' });
    expect(batch).toMatchObject({ status: 'completed', kind: 'credit_cards', result_message: '2 credit cards', file_errors_count: 1 });

    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; error: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field])).toEqual([[4, 'number']]);
    expect(JSON.stringify(errors.body)).not.toContain('4111111111111112');

    const echo = await ctx.api.get<string>(`/api/imports/${batch.id}/echo`);
    expect(echo.status).toBe(200);
    expect(echo.headers.get('content-type')).toContain('text/csv');
    const lines = echo.body.trim().split('\r\n').map((l) => l.split(','));
    // One echo line per line of the file: the refused one too, masked, with no tokens (a client matches them by position).
    expect(lines).toHaveLength(3);
    expect(lines[2]).toEqual([c, 'John Doe', 'John', 'Doe', '************1112', '****', 'H0H 0H0', 'N', '', '', '', '']);
    expect(echo.body).not.toContain('4111111111111112');
    expect(lines[0]!.slice(0, 9)).toEqual([c, 'John Doe', 'John', 'Doe', `************${VISA.slice(-4)}`, '****', 'H0H 0H0', 'N', 'POLICY_1']);
    expect(lines[1]![4]).toBe(`************${MASTERCARD.slice(-4)}`);
    const [walletToken, fundToken, vaultToken] = lines[0]!.slice(9);
    expect(lines[1]![9]).toBe(walletToken);
    expect(echo.body).not.toContain(VISA);
    expect(echo.body).not.toContain(MASTERCARD);

    const res = await ctx.api.get<{ wallets: Array<{ credit_cards: Array<{ token: string; gateway_token: string; last_4_digits: string }> }> }>(`/api/gateway/v1/wallets/${walletToken}`);
    const wallet = { status: res.status, body: res.body.wallets[0]! };
    expect(wallet.status).toBe(200);
    expect(wallet.body.credit_cards.map((x) => x.last_4_digits).sort()).toEqual([VISA.slice(-4), MASTERCARD.slice(-4)].sort());
    expect(wallet.body.credit_cards.find((x) => x.token === fundToken)?.gateway_token).toBe(vaultToken);

    // No card number rests anywhere in clear: not in the database, not in the upload kept while it ran.
    const dir = ctx.t.dir;
    const files = readdirSync(dir).filter((f) => f.startsWith('laneway.sqlite'));
    for (const f of files) expect(readFileSync(join(dir, f)).includes(Buffer.from(VISA))).toBe(false);
    expect(readdirSync(join(dir, 'imports'))).toEqual([]);
    // Nor a plain hash of the file: with the wallet's first six and last four, guessing the middle
    // digits of a one-card file against it gives the number back in seconds.
    const plain = createHash('sha256').update(csv).digest('hex');
    expect(batch.file_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(batch.file_fingerprint).not.toBe(plain);
    for (const f of files) expect(readFileSync(join(dir, f)).includes(Buffer.from(plain))).toBe(false);

    ctx.t.clock.advance(23 * 3_600_000);
    expect((await ctx.api.get(`/api/imports/${batch.id}/echo`)).status).toBe(200);
    ctx.t.clock.advance(3_600_000 + 1000);
    const gone = await ctx.api.get<{ code: string }>(`/api/imports/${batch.id}/echo`);
    expect([gone.status, gone.body.code]).toEqual([404, 'echo_expired']);
    await ctx.t.engine.tick();
    const left = await ctx.t.engine.core.find('records', { selector: { kind: 'import_echo', ref: String(batch.id) } });
    expect(left).toEqual([]);
  });

  it('keeps the echo one line per line of the file, and each error on its own line, around a line it cannot read', async () => {
    const c = uid('C');
    const csv = `${HEADER}\n${c},John Doe,John,Doe,${VISA},1230,H0H 0H0,N,\n${c},na"me,John,Doe,${MASTERCARD},1230,H0H 0H0,N,\n${c},John Doe,John,Doe,4895281000000007,1230,H0H 0H0,N,\n${c},John Doe,John,Doe,${AMEX},1230,H0H 0H0,N,\n`;
    const batch = await importCsv(ctx.api, csv, { filename: 'cards-unreadable.csv' });
    expect(batch).toMatchObject({ status: 'completed', result_message: '2 credit cards', file_errors_count: 2 });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; error: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field])).toEqual([[3, ''], [4, 'number']]);
    const lines = (await ctx.api.get<string>(`/api/imports/${batch.id}/echo`)).body.trim().split('\r\n').map((l) => l.split(','));
    expect(lines.map((l) => l[4])).toEqual([`************${VISA.slice(-4)}`, '', '************0007', `***********${AMEX.slice(-4)}`]);
    expect(lines[3]![9]).toMatch(/\S/);
  });

  it('makes the autopay agreement a Y in create_debit_agreement asks for, on the imported card', async () => {
    const c = uid('C');
    expect((await ctx.api.post('/api/imports/customer', { identifier: c, name: 'Mary Smith' })).status).toBe(201);
    const unknown = uid('C');
    const csv = `${HEADER}\n${c},Mary Smith,Mary,Smith,${VISA},1230,H0H 0H0,Y,POLICY_9\n${unknown},Nobody,No,Body,${MASTERCARD},1230,H0H 0H0,Y,\n${c},Mary Smith,Mary,Smith,${MASTERCARD},1230,H0H 0H0,maybe,\n`;
    const batch = await importCsv(ctx.api, csv);
    expect(batch).toMatchObject({ result_message: '1 credit card', file_errors_count: 2 });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual([
      [3, 'customer_identifier', 'customer_not_found'],
      [4, 'create_debit_agreement', 'invalid_create_debit_agreement'],
    ]);
    const fund = (await ctx.api.get<string>(`/api/imports/${batch.id}/echo`)).body.split(',')[10];
    const autopay = await ctx.api.get<{ autopays: Array<{ fund_token: string; autopay_references: string[]; state: string }> }>(`/api/autopay?customer_identifier=${c}`);
    expect(autopay.body.autopays.map((a) => [a.fund_token, a.autopay_references, a.state])).toEqual([[fund, ['POLICY_9'], 'approved']]);
    // The customer says so, as the reference's customer does.
    await until(async () => (await ctx.api.get<{ auto_debit: string }>(`/api/exports/customer/${c}`)).body.auto_debit === 'Y', "the customer's auto_debit", 5_000);
  });

  it('has no echo for a file that is not a card file', async () => {
    const batch = await importCsv(ctx.api, `code,name\n${uid('D')},X\n`);
    const res = await ctx.api.get<{ code: string }>(`/api/imports/${batch.id}/echo`);
    expect([res.status, res.body.code]).toEqual([404, 'echo_not_found']);
  });

  it('keys the plain fingerprints a data folder kept before, once, at the next start', async () => {
    const c = uid('C');
    const csv = `${HEADER}\n${c},Ann Old,Ann,Old,${VISA},1230,H0H 0H0,N,\n`;
    const batch = await importCsv(ctx.api, csv, { filename: 'old-cards.csv' });
    // The folder as the version before kept it: the batch and its duplicate-file record under the plain SHA-256.
    const plain = createHash('sha256').update(csv).digest('hex');
    const core = ctx.t.engine.core;
    await core.mutate(async (tx) => {
      const stored = await getRecord<Record<string, unknown>>(tx, 'import_batch', String(batch.id));
      await putRecord(tx, 'import_batch', String(batch.id), { ...stored!.data, file_fingerprint: plain }, { type: 'import.completed', entity: 'import', key: String(batch.id) }, 'completed');
      await putRecord(tx, 'import_fingerprint', plain, { batch: batch.id, at_ms: tx.now }, { type: 'import.fingerprint', entity: 'import', key: String(batch.id) });
      await tx.remove('records', recordId('sequence', 'import_fingerprints_keyed'), { type: 'sequence.updated', entity: 'sequence', key: 'import_fingerprints_keyed' });
    });
    await ctx.restart();
    const after = await ctx.api.get<{ file_fingerprint: string }>(`/api/imports/${batch.id}`);
    expect(after.body.file_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(after.body.file_fingerprint).not.toBe(plain);
    expect(await getRecord(ctx.t.engine.core, 'import_fingerprint', plain)).toBeUndefined();
    // Keyed once: the next start leaves it as it is.
    await ctx.restart();
    expect((await ctx.api.get<{ file_fingerprint: string }>(`/api/imports/${batch.id}`)).body.file_fingerprint).toBe(after.body.file_fingerprint);
  });
});
