import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import { signatureOf } from '../../src/engine/webhooks';

/** The spec's three steps, written out here on their own (not the engine's code). */
function specRecipe(body: Buffer, key: string): string {
  const step1 = createHmac('sha256', key).update(body).digest();
  const step2 = step1.toString('base64') + '\n';
  return encodeURIComponent(step2);
}

/** The verifier shown in docs/webhooks.md, as a reader would paste it. */
function docsVerifier(): (raw: Buffer, header: string | undefined, key: string) => boolean {
  const doc = readFileSync('docs/webhooks.md', 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!code) throw new Error('docs/webhooks.md has no js block');
  const sandbox: Record<string, unknown> = { require: createRequire(import.meta.url), Buffer, String, encodeURIComponent };
  runInNewContext(`${code}\nthis.verifyWebhook = verifyWebhook;`, sandbox);
  return sandbox.verifyWebhook as ReturnType<typeof docsVerifier>;
}

describe('X-Service-Signature', () => {
  const key = 'whsec_test-key';
  const bodies = [Buffer.from('{"identifier":"C1","name":"Acme Inc."}'), Buffer.from('{"name":"Café Ünïcode ✓"}'), Buffer.from('')];

  it('is the spec recipe: HMAC-SHA256 of the body bytes, Base64 plus a line feed, URL-encoded', () => {
    for (const body of bodies) {
      const sig = signatureOf(key, body);
      expect(sig).toBe(specRecipe(body, key));
      // The line feed and Base64's + / = are all percent-encoded.
      expect(sig.endsWith('%0A')).toBe(true);
      expect(sig).not.toMatch(/[+/=\n]/);
    }
  });

  it("the docs' verifier accepts the spec recipe's signature and refuses a changed body, key or header", () => {
    const verify = docsVerifier();
    for (const body of bodies) {
      const header = specRecipe(body, key);
      expect(verify(body, header, key)).toBe(true);
      expect(verify(Buffer.concat([body, Buffer.from(' ')]), header, key)).toBe(false);
      expect(verify(body, header, `${key}x`)).toBe(false);
      expect(verify(body, decodeURIComponent(header), key)).toBe(false);
      expect(verify(body, undefined, key)).toBe(false);
    }
  });
});
