import type { Engine } from '../engine';

const NAME = 'Desktop app (this machine)';

/**
 * The desktop window signs its API calls with JWTs minted for a credential of its own, so it can
 * be told apart in logs and disabled like any other. Its key is never needed, so never kept.
 */
export async function desktopCredential(engine: Engine): Promise<string> {
  const existing = (await engine.account.credentials.list()).find((c) => c.name === NAME && c.enabled);
  if (existing) return existing.token;
  return (await engine.account.credentials.create({ name: NAME })).token;
}
