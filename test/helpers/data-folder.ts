import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The files of a data folder (database, WAL, logs, uploads) holding `text`, searched as bytes. */
export function filesHolding(dir: string, text: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (readFileSync(p).includes(Buffer.from(text))) out.push(p);
    }
  };
  walk(dir);
  return out;
}
