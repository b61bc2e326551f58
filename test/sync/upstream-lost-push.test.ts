import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { startInstall, type Install } from './rig';
import { metaRecordOf } from './meta-rows';

/**
 * The hub's replication with its upstream meets the same RxDB race as a lane's with its hub
 * (lost-push.test.ts): a push whose record RxDB dropped left the hub skipping every later upstream
 * version of that customer. The dropped record is made on purpose while the hub is stopped.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('a customer push to the upstream the replication did not record', () => {
  const hubDir = tempDir();
  const upDir = tempDir();
  cleanups.push(hubDir.cleanup, upDir.cleanup);
  const upCreds = { token: 'UPSTREAMTOKEN1', key: 'upstream-secret-key-1' };
  let upstream: Install;
  let hub: Install;

  it('is offered again, and the upstream edits made after it come to the hub', async () => {
    upstream = await startInstall('upstream', upDir.dir, ['--rate-limit', '100000'], upCreds);
    cleanups.push(() => upstream.proc.stop());
    const hubArgs = ['--sync-poll-ms', '200'];
    hub = await startInstall('hub', hubDir.dir, hubArgs);
    await upstream.api('POST', '/api/imports/customer', { identifier: 'UC9', name: 'Upstream Nine', city: 'Laval' });
    await hub.api('PUT', '/api/sync/upstream', { url: upstream.url, ...upCreds });
    await until(async () => (await hub.api('GET', '/api/exports/customer/UC9').catch(() => undefined)) !== undefined, 'UC9 on the hub');

    const ofUC9 = (d: Record<string, unknown>) => d.id === 'UC9';
    const telephoneOf = (d: Record<string, unknown> | undefined) => ((d?.body ?? {}) as { telephone?: string }).telephone;
    const before = (await until(async () => metaRecordOf(hubDir.dir, ofUC9), "the hub's record of UC9")).data;
    await hub.api('POST', '/api/imports/customer', { identifier: 'UC9', name: 'Upstream Nine', telephone: '5145550101' });
    await until(async () => (await upstream.api<{ telephone: string }>('GET', '/api/exports/customer/UC9')).telephone === '5145550101', "the hub's edit upstream");
    await until(async () => telephoneOf(metaRecordOf(hubDir.dir, ofUC9)?.data.docData) === '5145550101', "the hub's record of its push");
    await hub.proc.stop();
    // The push's record lost, as the race leaves it: the upstream's version before the hub's edit.
    metaRecordOf(hubDir.dir, ofUC9)!.replace(before);

    hub = await startInstall('hub', hubDir.dir, hubArgs);
    cleanups.push(() => hub.proc.stop());
    await upstream.api('POST', '/api/imports/customer', { identifier: 'UC9', name: 'Upstream Nine', notes: 'after' });
    const onHub = await until(async () => {
      const c = await hub.api<{ notes: string; telephone: string; city: string }>('GET', '/api/exports/customer/UC9');
      return c.notes === 'after' ? c : undefined;
    }, "the upstream's later edit on the hub");
    expect([onHub.telephone, onHub.city]).toEqual(['5145550101', 'Laval']);
    const onUpstream = await upstream.api<{ notes: string; telephone: string; city: string }>('GET', '/api/exports/customer/UC9');
    expect([onUpstream.notes, onUpstream.telephone, onUpstream.city]).toEqual(['after', '5145550101', 'Laval']);
  }, 120_000);
});
