import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { openInstallKeys } from '../../src/engine/security/install-keys';
import { openSecret, sealSecret } from '../../src/engine/webhooks/signing';
import { tempDir } from '../helpers/tmp';

describe('the settings_secret install key', () => {
  it('is added to a key file made before it existed, and kept there', () => {
    const tmp = tempDir();
    try {
      const keys = openInstallKeys({ dataDir: tmp.dir });
      const file = JSON.parse(readFileSync(keys.path, 'utf8')) as Record<string, unknown>;
      delete file.settings_secret;
      writeFileSync(keys.path, JSON.stringify(file));
      const reopened = openInstallKeys({ dataDir: tmp.dir, mayCreate: false });
      const added = reopened.current('settings_secret');
      expect(added.secret).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.parse(readFileSync(keys.path, 'utf8')).settings_secret.current.secret).toBe(added.secret);
      expect(openInstallKeys({ dataDir: tmp.dir, mayCreate: false }).current('settings_secret').secret).toBe(added.secret);
    } finally {
      tmp.cleanup();
    }
  });

  it('seals a secret that still opens after a rotation, and refuses one tampered with', () => {
    const tmp = tempDir();
    try {
      const keys = openInstallKeys({ dataDir: tmp.dir });
      const sealed = sealSecret(keys, 'smtp-password-or-signing-key');
      expect(sealed.sealed).not.toContain('smtp');
      keys.rotate(['settings_secret']);
      expect(openSecret(keys, sealed)).toBe('smtp-password-or-signing-key');
      const raw = Buffer.from(sealed.sealed, 'base64');
      raw.writeUInt8(raw.at(-1)! ^ 1, raw.length - 1);
      expect(() => openSecret(keys, { ...sealed, sealed: raw.toString('base64') })).toThrow();
    } finally {
      tmp.cleanup();
    }
  });
});
