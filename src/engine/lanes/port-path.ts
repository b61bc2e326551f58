import { lstat, realpath, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { fail } from '../errors';

/**
 * Which paths a lane may open: serial devices only. The API may be reachable by other local users
 * and programs; a lane's port is opened by this process with its rights, so an arbitrary file
 * must not be accepted, and the answer must not tell whether a path exists.
 */

/** Serial device names: Linux (`/dev/ttyUSB0`, `/dev/ttyS0`, `/dev/pts/3`, `/dev/serial/by-id/...`), macOS (`/dev/cu.*`, `/dev/tty.*`). */
const DEVICE = /^\/dev\/(?:tty[^/]*|pts\/\d+|serial\/.+|cu\.[^/]+)$/;
/**
 * Terminals, not serial ports: the controlling terminal (`/dev/tty`), the virtual consoles
 * (`/dev/tty0`..), the console, and the links to this process's own streams (`/dev/stdin`,
 * `/dev/fd/0`, `/proc/self/fd/0`, which resolve to the operator's terminal).
 */
const TERMINAL = /^\/dev\/(?:tty\d*|console)$/;
const OWN_STREAMS = /^\/(?:dev\/(?:std(?:in|out|err)|fd\/)|proc\/)/;
/** Windows: `COM3`, or `\\.\COM12`. */
const WINDOWS_COM = /^(?:\\\\\.\\)?COM\d{1,3}$/i;

const RULE = 'must name a serial device of this machine: /dev/tty* (not a terminal or console), /dev/pts/*, /dev/serial/*, COMn on Windows, or a link to one';

/** One answer for every refusal, whether or not the path exists. */
const refused = () => fail.invalid('invalid_port_path', `port_path ${RULE}`, [{ field: 'port_path', code: 'invalid_port_path', message: RULE }]);

/**
 * Accepts a serial device path, or a link that resolves to one (socat's pty links, udev's
 * by-id names); throws the same generic error for anything else. A device name that does not
 * exist (yet) is accepted: a USB adapter may be plugged in later, and the lane opens it then.
 */
export async function checkPortPath(path: string): Promise<void> {
  if (WINDOWS_COM.test(path)) return;
  // `/dev/tty/../../etc/passwd`, `//dev/tty`, `/dev/./tty`: only the plain spelling passes.
  if (!path.startsWith('/') || posix.normalize(path) !== path || TERMINAL.test(path) || OWN_STREAMS.test(path)) throw refused();
  let exists = true;
  try {
    await lstat(path);
  } catch {
    exists = false;
  }
  if (!exists) {
    if (DEVICE.test(path)) return;
    throw refused();
  }
  try {
    const target = await realpath(path);
    if (DEVICE.test(target) && !TERMINAL.test(target) && (await stat(target)).isCharacterDevice()) return;
  } catch {
    // A dangling link or an unreadable path: refused like any other.
  }
  throw refused();
}
