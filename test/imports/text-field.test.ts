import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getRecord } from '../../src/engine/records';
import { basicAuth, useHarness } from '../helpers/harness';
import { checkResponse } from '../helpers/openapi-check';
import { uid } from '../helpers/receivables';
import { settled, upload, type Batch } from './upload';

/**
 * The reference types `file` as a plain string, so clients generated from it (and Python's
 * `requests.post(url, data={'file': text}, files=...)`) send the file's content as a text field:
 * it takes the same way in as a file part.
 */
const ctx = useHarness({ api: true });
const uploads = () => readdirSync(join(ctx.t.dir, 'imports'));
type Reply = Batch & { code: string; error: string };

async function send(body: FormData | Buffer, contentType?: string) {
  const res = await fetch(`${ctx.api.url}/api/imports`, { method: 'POST', headers: { Authorization: basicAuth(), ...(contentType ? { 'Content-Type': contentType } : {}) }, body });
  const reply = (await res.json()) as Reply;
  expect(checkResponse('POST', '/api/imports', res.status, reply, res.headers.get('content-type') ?? '')).toEqual([]);
  return { status: res.status, body: reply };
}

function textForm(csv: string, filename?: string): FormData {
  const form = new FormData();
  if (filename !== undefined) form.append('filename', filename);
  form.append('file', csv);
  return form;
}

/** A multipart body written by hand: a text part holding `content` as raw bytes, with no file name. */
function rawTextPart(content: Buffer, partHeaders = ''): Buffer {
  return Buffer.concat([
    Buffer.from(`--B0UND\r\nContent-Disposition: form-data; name="filename"\r\n\r\nraw.csv\r\n--B0UND\r\nContent-Disposition: form-data; name="file"\r\n${partHeaders}\r\n`),
    content,
    Buffer.from('\r\n--B0UND--\r\n'),
  ]);
}

describe('POST /api/imports with `file` as a text field', () => {
  it('imports it as a file part: named by `filename`, the same fingerprint (so the same file sent either way is a duplicate), the accents kept', async () => {
    const code = uid('TXT');
    // CRLF: a form's text field is sent with CRLF line breaks (FormData writes a lone LF as CRLF).
    const csv = `code,name\r\n${code},Café du Marché\r\n`;
    const res = await send(textForm(csv, 'branches.csv'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ file_name: 'branches.csv', file_size: Buffer.byteLength(csv), kind: 'divisions' });
    expect(await settled(ctx.api, res.body.id)).toMatchObject({ status: 'completed', file_errors_count: 0, result_message: '1 division' });
    expect((await getRecord<{ name: string }>(ctx.t.engine.core, 'division', code))?.data.name).toBe('Café du Marché');

    const asFile = await upload(ctx.api.url, csv);
    expect([asFile.status, asFile.body.code]).toEqual([409, 'duplicate_file']);
    const forced = await upload(ctx.api.url, csv, { force: true });
    expect(forced.body.file_fingerprint).toBe(res.body.file_fingerprint);
    await settled(ctx.api, forced.body.id);

    // Without `filename` the batch is named upload.csv; `force` works as a field beside it.
    const unnamed = await send(textForm(`code,name\n${uid('TXT')},Plain\n`));
    expect(unnamed.body.file_name).toBe('upload.csv');
    await settled(ctx.api, unnamed.body.id);
    const again = await send(textForm(csv, 'branches.csv'));
    expect([again.status, again.body.code]).toEqual([409, 'duplicate_file']);
    const form = textForm(csv, 'branches.csv');
    form.append('force', 'true');
    const forcedText = await send(form);
    expect(forcedText.status).toBe(201);
    await settled(ctx.api, forcedText.body.id);
    expect(uploads()).toEqual([]);
  });

  it('refuses what a file part is refused for: bytes that are not UTF-8 (naming the line), an empty or unknown file, over 25 MB', async () => {
    const cp1252 = Buffer.concat([Buffer.from('code,name\nA1,Plain\nCAFE,Caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const ansi = await send(rawTextPart(cp1252), 'multipart/form-data; boundary=B0UND');
    expect([ansi.status, ansi.body.code]).toEqual([415, 'not_csv']);
    expect(ansi.body.error).toContain('line 3 ');
    // The same bytes as a file part say the same.
    const part = await upload(ctx.api.url, cp1252);
    expect([part.status, part.body.error]).toEqual([415, ansi.body.error]);

    // A part that declares its charset is read by it (what .NET's StringContent sends).
    const declared = await send(rawTextPart(Buffer.from(`code,name\n${uid('TXT')},Crème\n`), 'Content-Type: text/plain; charset=utf-8\r\n'), 'multipart/form-data; boundary=B0UND');
    expect(declared.status, JSON.stringify(declared.body)).toBe(201);
    await settled(ctx.api, declared.body.id);

    expect((await send(textForm(''))).body.code).toBe('empty_file');
    expect((await send(textForm('colour,size\nred,9\n'))).body.code).toBe('unknown_header');
    const big = `code,name\n${'X,'.padEnd(1022, 'y')}\n`.repeat(25 * 1024 + 1);
    const tooLarge = await send(textForm(big));
    expect([tooLarge.status, tooLarge.body.code]).toEqual([413, 'file_too_large']);
    const batches = (await ctx.api.get<Batch[]>('/api/imports')).body;
    expect(batches.filter((b) => b.id > declared.body.id)).toEqual([]);
    expect(uploads()).toEqual([]);
  });
});
