import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openHarness, type Harness, type TestEngine, type ApiClient } from '../helpers/harness';
import { tempDir } from '../helpers/tmp';
import { SocatPair } from './helpers';

/**
 * Issue 13 item 10: a lane's port_path is a serial device, and the refusal does not tell whether
 * a path exists. Real pseudo-terminals (socat) for the links that must still work.
 */
type ErrorBody = { error: string; code: string; details?: Array<{ field?: string; message: string }> };

let h: Harness;
let t: TestEngine;
let api: ApiClient;
let tmp: { dir: string; cleanup: () => void };
let pair: SocatPair;

beforeAll(async () => {
  h = await openHarness({ api: true });
  ({ t, api } = h);
  tmp = tempDir('laneway-ports-');
  pair = new SocatPair(tmp.dir, 'till');
  await pair.plug();
});
afterAll(async () => {
  await pair.unplug();
  await h.close();
  tmp.cleanup();
});

describe('lane port paths', () => {
  it('accepts serial devices, device names not plugged in yet, COM ports, and a socat pty link under /tmp', async () => {
    expect(realpathSync(pair.host)).toMatch(/^\/dev\/pts\/\d+$/);
    const ok: Array<[string, string]> = [
      ['pty', pair.host],
      ['usb', '/dev/ttyUSB7'],
      ['byid', '/dev/serial/by-id/usb-FTDI_FT232R-if00-port0'],
      ['com', 'COM4'],
      ['pts', realpathSync(pair.device)],
    ];
    for (const [laneid, port_path] of ok) {
      const res = await api.post<ErrorBody>('/api/lanes', { laneid, port_path });
      expect(res.status, `${port_path}: ${JSON.stringify(res.body)}`).toBe(201);
    }
  });

  it('refuses any other file with one generic answer, whether or not it exists', async () => {
    const file = join(tmp.dir, 'notes.txt');
    writeFileSync(file, 'private');
    const linkToFile = join(tmp.dir, 'sneaky-link');
    symlinkSync('/etc/passwd', linkToFile);
    const dangling = join(tmp.dir, 'dangling');
    symlinkSync('/dev/pts/999999', dangling);
    const dir = join(tmp.dir, 'folder');
    mkdirSync(dir);
    expect(readlinkSync(linkToFile)).toBe('/etc/passwd');
    const refused = ['/etc/passwd', '/etc/no-such-file-here', file, join(tmp.dir, 'missing'), linkToFile, dangling, dir, '/dev/null', '/dev/../etc/passwd', '/dev/tty/../../etc/shadow', 'ttyUSB0', '/dev//ttyUSB0',
      // Terminals, not serial ports: the operator's own terminal and the consoles.
      '/dev/tty', '/dev/tty0', '/dev/tty12', '/dev/console', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'];
    const before = t.engine.core.currentWatermark();
    const answers = new Set<string>();
    for (const [i, port_path] of refused.entries()) {
      const res = await api.post<ErrorBody>('/api/lanes', { laneid: `bad${i}`, port_path });
      expect(res.status, port_path).toBe(400);
      expect(res.body.code, port_path).toBe('invalid_port_path');
      expect(res.body.details?.[0]?.field).toBe('port_path');
      answers.add(JSON.stringify(res.body));
    }
    // The same words for /etc/passwd as for a path that does not exist: no oracle.
    expect(answers.size).toBe(1);
    expect([...answers][0]).not.toContain('etc');
    expect(t.engine.core.currentWatermark()).toBe(before);

    const moved = await api.patch<ErrorBody>('/api/lanes/usb', { port_path: '/etc/passwd' });
    expect(moved.status).toBe(400);
    expect(moved.body.code).toBe('invalid_port_path');
    expect((await api.get<{ port_path: string }>('/api/lanes/usb')).body.port_path).toBe('/dev/ttyUSB7');
  });
});
