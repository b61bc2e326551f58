import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getRecord } from '../../src/engine/records';
import { basicAuth, useHarness } from '../helpers/harness';
import { uid } from '../helpers/receivables';
import { importCsv, settled, upload, type Batch } from './upload';

const ctx = useHarness({ api: true });

const divisions = (n = 1) => `code,name\n${Array.from({ length: n }, () => `${uid('D')},Branch`).join('\n')}\n`;
const uploads = () => readdirSync(join(ctx.t.dir, 'imports'));

describe('POST /api/imports refusals: a clear error and nothing written', () => {
  it('refuses an empty file, a header alone, an unknown header, a file that is not CSV, and one over 25 MB', async () => {
    const before = ctx.t.engine.core.currentWatermark();
    const cases: Array<[string | Uint8Array, number, string]> = [
      ['', 412, 'empty_file'],
      ['code,name\r\n', 412, 'empty_file'],
      ['colour,size\nred,9\n', 412, 'unknown_header'],
      ['code,name,colour\nA,B,red\n', 412, 'unknown_header'],
      [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]), 415, 'not_csv'],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0xff, 0xfe, 0xc3, 0x28]), 415, 'not_csv'],
    ];
    for (const [body, status, code] of cases) {
      const res = await upload(ctx.api.url, body);
      expect([res.status, res.body.code], String(body).slice(0, 30)).toEqual([status, code]);
    }
    const big = `code,name\n${'X,'.padEnd(1022, 'y')}\n`.repeat(25 * 1024 + 1);
    const res = await upload(ctx.api.url, big);
    expect([res.status, res.body.code]).toEqual([413, 'file_too_large']);
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
    expect(uploads()).toEqual([]);
    expect((await ctx.api.get<Batch[]>('/api/imports')).body).toEqual([]);
  });

  it('refuses a file with bytes that are not UTF-8 anywhere in it, naming the line, and writes nothing', async () => {
    const before = ctx.t.engine.core.currentWatermark();
    // 70 KB of plain ASCII rows first (past what the kind is told from), then a name as a
    // spreadsheet's ANSI "CSV" saves it: "Café" in Windows-1252.
    const rows = Array.from({ length: 2000 }, (_, i) => `ASCII${i},Plain branch name number ${i}\n`).join('');
    const line = 2 + 2000;
    const body = Buffer.concat([Buffer.from(`code,name\n${rows}`), Buffer.from('CAFE,Caf'), Buffer.from([0xe9]), Buffer.from('\nLAST,Last\n')]);
    expect(body.length).toBeGreaterThan(64 * 1024);
    const res = await upload(ctx.api.url, body);
    expect([res.status, res.body.code]).toEqual([415, 'not_csv']);
    expect(res.body.error).toContain(`line ${line} `);
    expect(res.body.error).toContain('CSV UTF-8');
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
    expect(uploads()).toEqual([]);
    // The same file as UTF-8 imports every line, the accent kept.
    const good = await upload(ctx.api.url, Buffer.from(`code,name\n${rows}CAFE,Café\nLAST,Last\n`));
    expect(good.status).toBe(201);
    expect(await settled(ctx.api, good.body.id)).toMatchObject({ status: 'completed', file_errors_count: 0, result_message: '2002 divisions' });
    expect((await getRecord<{ name: string }>(ctx.t.engine.core, 'division', 'CAFE'))?.data.name).toBe('Café');
  });

  it('reads a spreadsheet\'s semicolon- or tab-separated file as it reads a comma-separated one', async () => {
    const semi = await upload(ctx.api.url, '\uFEFFidentifier;name;email\r\nSEMI-1;"Dupont; Fils, et Cie";compta@dupont.example\r\nSEMI-2;Martin;\r\n');
    expect(semi.status).toBe(201);
    expect(semi.body.kind).toBe('customers');
    expect(await settled(ctx.api, semi.body.id)).toMatchObject({ status: 'completed', file_errors_count: 0, result_message: '2 customers' });
    expect((await ctx.api.get<{ name: string; email: string }>('/api/exports/customer/SEMI-1')).body).toMatchObject({ name: 'Dupont; Fils, et Cie', email: 'compta@dupont.example' });
    const tab = await upload(ctx.api.url, 'code\tname\nTAB1\tTabbed, branch\n');
    expect(tab.status).toBe(201);
    expect(await settled(ctx.api, tab.body.id)).toMatchObject({ status: 'completed', file_errors_count: 0, result_message: '1 division' });
    expect((await getRecord<{ name: string }>(ctx.t.engine.core, 'division', 'TAB1'))?.data.name).toBe('Tabbed, branch');
    // A comma file is still read by commas, even with a semicolon inside a field of its header row's line.
    const unknown = await upload(ctx.api.url, 'colour;size\nred;9\n');
    expect([unknown.status, unknown.body.code]).toEqual([412, 'unknown_header']);
  });

  it('refuses a file imported in the last 24 hours unless forced, then takes it again after 24 hours', async () => {
    const csv = divisions();
    const first = await upload(ctx.api.url, csv, { filename: 'branches.csv' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ file_name: 'branches.csv', file_size: Buffer.byteLength(csv), file_content_type: 'text/csv', status: 'processing', kind: 'divisions' });
    expect(first.body.file_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    await settled(ctx.api, first.body.id);
    const watermark = ctx.t.engine.core.currentWatermark();
    const again = await upload(ctx.api.url, csv);
    expect([again.status, again.body.code]).toEqual([409, 'duplicate_file']);
    expect(again.body.error).toContain(`batch ${first.body.id}`);
    expect(ctx.t.engine.core.currentWatermark()).toBe(watermark);
    const forced = await upload(ctx.api.url, csv, { force: true });
    expect(forced.status).toBe(201);
    expect(forced.body.file_fingerprint).toBe(first.body.file_fingerprint);
    await settled(ctx.api, forced.body.id);
    // The query takes the words the form field does.
    const no = await upload(ctx.api.url, csv, { path: '/api/imports?force=no' });
    expect([no.status, no.body.code]).toEqual([409, 'duplicate_file']);
    const one = await upload(ctx.api.url, csv, { path: '/api/imports?force=1' });
    expect(one.status).toBe(201);
    await settled(ctx.api, one.body.id);
    const odd = await upload(ctx.api.url, csv, { path: '/api/imports?force=maybe' });
    expect(odd.status).toBe(400);
    ctx.t.clock.advance(24 * 3_600_000 + 1000);
    const later = await upload(ctx.api.url, csv);
    expect(later.status).toBe(201);
    await settled(ctx.api, later.body.id);
    expect(uploads()).toEqual([]);
  });

  it('leaves nothing in the data folder when an upload is cut short (the client gone, or a body that ends mid-part)', async () => {
    const { port } = new URL(ctx.api.url);
    const head = (length: number) =>
      `POST /api/imports HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${basicAuth()}\r\nContent-Type: multipart/form-data; boundary=CUT\r\nContent-Length: ${length}\r\n\r\n`;
    const part = `--CUT\r\nContent-Disposition: form-data; name="file"; filename="cards.csv"\r\nContent-Type: text/csv\r\n\r\n${divisions(2000)}`;
    // The connection dropped half-way (an ERP's network, a killed job): the rest never comes.
    const dropped = connect(Number(port), '127.0.0.1');
    dropped.write(head(part.length * 2) + part);
    await new Promise((r) => setTimeout(r, 300));
    dropped.destroy();
    // A body that ends without its closing boundary is answered 400.
    const cut = await fetch(`${ctx.api.url}/api/imports`, { method: 'POST', headers: { Authorization: basicAuth(), 'Content-Type': 'multipart/form-data; boundary=CUT' }, body: part });
    expect([cut.status, ((await cut.json()) as { code: string }).code]).toEqual([400, 'bad_multipart']);
    const until = Date.now() + 5000;
    while (uploads().length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(uploads()).toEqual([]);
    expect((await ctx.api.get<Batch[]>('/api/imports/processing')).body).toEqual([]);
  });

  it('needs credentials and a multipart body', async () => {
    const res = await upload(ctx.api.url, divisions(), { auth: basicAuth('NOPE', 'nope') });
    expect(res.status).toBe(401);
    const json = await ctx.api.post('/api/imports', { file: 'code,name\nA,B\n' });
    expect(json.status).toBe(415);
    // The reference's own path ends with a slash.
    const slash = await upload(ctx.api.url, divisions(), { path: '/api/imports/' });
    expect(slash.status).toBe(201);
    await settled(ctx.api, slash.body.id);
    // A form without `file` at all.
    const form = new FormData();
    form.append('filename', 'nothing.csv');
    const none = await fetch(`${ctx.api.url}/api/imports`, { method: 'POST', headers: { Authorization: basicAuth() }, body: form });
    expect([none.status, ((await none.json()) as { code: string }).code]).toEqual([412, 'file_missing']);
  });
});

describe('batch listings', () => {
  it('lists batches newest first, 50 a page, in progress and completed apart', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 53; i++) {
      const res = await upload(ctx.api.url, divisions());
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    await ctx.t.engine.imports.idle();
    const all = (await ctx.api.get<Batch[]>('/api/imports')).body;
    expect(all).toHaveLength(50);
    expect(all.map((b) => b.id)).toEqual([...all.map((b) => b.id)].sort((a, b) => b - a));
    expect(all[0]!.id).toBe(ids.at(-1));
    const total = all.length + (await ctx.api.get<Batch[]>('/api/imports?page=2')).body.length;
    const completed1 = (await ctx.api.get<Batch[]>('/api/imports/completed?page=1')).body;
    const completed2 = (await ctx.api.get<Batch[]>('/api/imports/completed?page=2')).body;
    expect(completed1).toHaveLength(50);
    expect(completed1.length + completed2.length).toBe(total);
    expect(completed1.every((b) => b.status === 'completed')).toBe(true);
    expect((await ctx.api.get<Batch[]>('/api/imports/processing')).body).toEqual([]);
    expect((await ctx.api.get<Batch[]>('/api/imports?page=3')).body).toEqual([]);
    expect((await ctx.api.get('/api/imports/999999999')).status).toBe(404);
  });

  it('puts progress on the event stream (GET /api/events): one event per committed chunk, not per line', async () => {
    const watermark = ctx.t.engine.core.currentWatermark();
    const batch = await importCsv(ctx.api, divisions(1200));
    expect(batch.result_message).toBe('1200 divisions');
    // Replayed from the outbox after `watermark`, as a screen that reconnects gets it.
    const abort = new AbortController();
    const res = await fetch(`${ctx.api.url}/api/events?watermark=${watermark}`, { headers: { Authorization: basicAuth() }, signal: abort.signal });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: import.completed')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const events = text
      .split('\n\n')
      .filter((f) => f.includes('"entity":"import"') && f.includes(`"key":"${batch.id}"`))
      .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as { type: string; data: Record<string, number> });
    const progress = events.filter((e) => e.type === 'import.progress');
    expect(progress.map((e) => e.data.lines_done)).toEqual([501, 1001, 1201]);
    expect(progress.at(-1)?.data).toMatchObject({ lines_total: 1201, errors: 0, records: 1200 });
    expect(events.map((e) => e.type)).toEqual(['import.created', 'import.fingerprint', 'import.progress', 'import.progress', 'import.progress', 'import.completed']);
  });
});
