import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { openTestEngine } from '../helpers/harness';
import { tempDir } from '../helpers/tmp';

/** `npm run admin -- reset-owner` on a stopped install: a new one-time link that signs the owner in. */
describe('admin reset-owner', () => {
  it('prints a one-time link that sets the owner\'s password and signs them in, once', async () => {
    const tmp = tempDir('laneway-reset-owner-');
    try {
      const first = await openTestEngine({ dir: tmp.dir, keep: true });
      const owner = first.engine.users.owner()!;
      await first.close();

      const run = spawnSync('npm', ['run', '--silent', 'admin', '--', 'reset-owner', '--data-dir', tmp.dir], { encoding: 'utf8', timeout: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      const secret = /\/app\/welcome#link=([^\s&]+)/.exec(run.stdout)?.[1];
      expect(secret, run.stdout).toBeTruthy();

      const again = await openTestEngine({ dir: tmp.dir, keep: true });
      const session = await again.engine.users.redeemLink(secret!, 'a brand new password');
      expect(session.user.id).toBe(owner.id);
      await expect(again.engine.users.redeemLink(secret!, 'a brand new password')).rejects.toThrow(/expired or was already used/);
      await again.close();
    } finally {
      tmp.cleanup();
    }
  }, 150_000);
});
