import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface Mail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpRig {
  port: number;
  mails: Mail[];
  /** The user names of the AUTH commands received (right or wrong), in order. */
  logins: string[];
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback that takes one user's password over plain TCP (it offers no
 * STARTTLS). `listenOn: '0.0.0.0'` makes it answer on the machine's other addresses too.
 */
export async function startSmtp(user = 'relay-user', pass = 'relay-pass-0123', listenOn = '127.0.0.1'): Promise<SmtpRig> {
  const mails: Mail[] = [];
  const logins: string[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      logins.push(auth.username ?? '');
      if (auth.username === user && auth.password === pass) cb(null, { user });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        for (const w of waiters.filter((w) => mails.length >= w.n)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, listenOn, r));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    mails,
    logins,
    waitFor(n, timeoutMs = 10_000) {
      if (mails.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`SMTP got ${mails.length} of ${n} mails`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
      });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The decoded bytes of a base64 MIME part whose headers mention `filename`. */
export function attachmentOf(raw: string, filename: string): Buffer | undefined {
  const at = raw.indexOf(`filename=${filename}`) >= 0 ? raw.indexOf(`filename=${filename}`) : raw.indexOf(`filename="${filename}"`);
  if (at < 0) return undefined;
  const start = raw.indexOf('\r\n\r\n', at);
  const end = raw.indexOf('\r\n--', start);
  return Buffer.from(raw.slice(start + 4, end).replace(/\s+/g, ''), 'base64');
}
