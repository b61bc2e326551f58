import { describe, expect, it } from 'vitest';
import { webHref } from '../../src/shared/web-address';

/** The one rule the customer import keeps a web site by and the back office links it by. */
describe('webHref: a customer web site as a link', () => {
  it('links http and https addresses, and a bare host over https (the reference writes www.acmeinc.com)', () => {
    expect(webHref('https://www.acme.test/about')).toBe('https://www.acme.test/about');
    expect(webHref('HTTP://Acme.test')).toBe('http://acme.test/');
    expect(webHref('www.acmeinc.com')).toBe('https://www.acmeinc.com/');
    expect(webHref('acme.test:8080/shop')).toBe('https://acme.test:8080/shop');
  });

  it('never makes an href of another scheme, whatever its case or the spaces and controls around it', () => {
    for (const bad of ['javascript:alert(1)', ' JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', '\u0001javascript:alert(1)', 'javascript:1', 'javascript://www.acme.test/%0aalert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'ftp://files.acme.test', 'file:///etc/passwd', 'mailto:a@acme.test']) {
      expect(webHref(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('refuses what reads as one site and opens another, and what is no address', () => {
    for (const bad of ['https://bank.test@evil.test', 'https://user:pw@acme.test', 'https://', 'localhost', 'not a web site', '\\\\evil.test\\share', '']) {
      expect(webHref(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
