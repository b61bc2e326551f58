import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

// The import boundaries of eslint.config.js, run on probe sources placed (by file name only) in
// each folder: what each folder may not import is refused, and what it may import passes.
const eslint = new ESLint({ cwd: process.cwd() });

async function refused(file: string, ...specifiers: string[]): Promise<string[]> {
  const code = specifiers.map((s, i) => `import type { X as X${i} } from '${s}';\nexport type Y${i} = X${i};`).join('\n');
  const [result] = await eslint.lintText(code, { filePath: file });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message.split("'")[1]!);
}

describe('import boundaries', () => {
  it('the engine imports no server, express or electron', async () => {
    expect(await refused('src/engine/gateway/probe.ts', '../../server/errors', 'express', 'electron', '../../store', '../../shared/money')).toEqual(['../../server/errors', 'express', 'electron']);
    expect(await refused('src/engine/probe.ts', '../server/route', '../store')).toEqual(['../server/route']);
  });

  it('the store imports no engine', async () => {
    expect(await refused('src/store/sqlite/probe.ts', '../../engine/clock', './table')).toEqual(['../../engine/clock']);
    expect(await refused('src/store/probe.ts', '../engine', 'rxdb')).toEqual(['../engine']);
  });

  it('the terminal imports no store or server', async () => {
    expect(await refused('src/terminal/simulator/probe.ts', '../../store', '../../server/app', '../../engine/lanes/driver-port')).toEqual(['../../store', '../../server/app']);
  });

  it('the renderer imports only its own code and src/shared', async () => {
    const file = 'src/renderer/src/screens/pos/probe.tsx';
    expect(
      await refused(file, '../../../../engine', '../../../../server/route', '../../../../../package.json', 'node:fs', 'electron', '../../../../shared/money', '../../api/pos', './Modal', 'react', 'zustand'),
    ).toEqual(['../../../../engine', '../../../../server/route', '../../../../../package.json', 'node:fs', 'electron']);
    expect(await refused('src/renderer/src/probe.ts', '../../store', '../../shared/words', './format')).toEqual(['../../store']);
  });

  it('a file over 600 lines of code is an error, a function over 80 a warning', async () => {
    const body = Array.from({ length: 90 }, (_, i) => `  total += ${i};`).join('\n');
    const fn = `export function long(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    const [short] = await eslint.lintText(fn, { filePath: 'src/engine/probe.ts' });
    expect(short!.messages.map((m) => [m.ruleId, m.severity])).toEqual([['max-lines-per-function', 1]]);
    const big = Array.from({ length: 601 }, (_, i) => `export const c${i} = ${i};`).join('\n');
    const [long] = await eslint.lintText(big, { filePath: 'src/server/probe.ts' });
    expect(long!.messages.map((m) => [m.ruleId, m.severity])).toEqual([['max-lines', 2]]);
  });
});
