import { safeStorage } from 'electron';
import type { KeyProtector } from '../engine/security/install-keys';

/**
 * Seals the install's key file with the OS keychain (Keychain, DPAPI, the Secret Service) through
 * Electron's safeStorage, when the window runs and `LANEWAY_SEAL_KEYS=1` asks for it. Opt-in: a
 * sealed folder no longer opens under `npm run serve`. Undefined where safeStorage has no real
 * keychain (Linux without one falls back to a fixed password, which protects nothing).
 */
export function keychainProtector(): KeyProtector | undefined {
  if (process.env.LANEWAY_SEAL_KEYS !== '1' || !safeStorage.isEncryptionAvailable()) return undefined;
  if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') return undefined;
  return {
    name: 'electron-safe-storage',
    seal: (plain) => safeStorage.encryptString(plain.toString('utf8')),
    unseal: (sealed) => Buffer.from(safeStorage.decryptString(sealed), 'utf8'),
  };
}
