/**
 * What a shop may style in the frame: the reference's list of CSS properties, on the frame's
 * elements and field ids, with values that cannot load anything or break out of the rule. Fonts
 * only from Google Fonts' CSS (the reference's `fontUrls`). Anything else is dropped, silently: a
 * shop's stylesheet must not be a way to read or exfiltrate what the buyer types.
 */
export const ALLOWED_PROPERTIES = new Set([
  '-moz-appearance', '-moz-osx-font-smoothing', '-moz-tap-highlight-color', '-moz-transition', '-webkit-appearance', '-webkit-font-smoothing',
  '-webkit-tap-highlight-color', '-webkit-transition', 'appearance', 'background-color', 'border', 'border-radius', 'color', 'direction', 'font',
  'font-family', 'font-size', 'font-size-adjust', 'font-stretch', 'font-style', 'font-variant', 'font-variant-alternates', 'font-variant-caps',
  'font-variant-east-asian', 'font-variant-ligatures', 'font-variant-numeric', 'font-weight', 'letter-spacing', 'line-height', 'margin', 'margin-top',
  'margin-right', 'margin-bottom', 'margin-left', 'opacity', 'outline', 'padding', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'text-align', 'text-shadow', 'transition', 'flex-direction', 'flex-flow', 'flex-basis', 'flex-shrink', 'flex-grow', 'flex-wrap', 'justify-content',
  'flex', 'align-self', 'align-items', 'align-content',
]);

/** The reference's DOM ids, plus the bank account and gift card fields of this frame. */
export const FIELD_IDS = [
  'accountNoDiv', 'accountNo', 'cardholderNameDiv', 'cardholderName', 'expDateDiv', 'expDate', 'expMonth', 'expYear', 'cvvDiv', 'cvv',
  'accountTypeDiv', 'accountType', 'checkTypeDiv', 'checkType', 'accountHolderDiv', 'accountHolder', 'routingNoDiv', 'routingNo', 'achAccountNoDiv', 'achAccountNo',
  'gcAccountNoDiv', 'gcAccountNo', 'pinDiv', 'pin',
];

const ELEMENTS = ['html', 'body', 'input', 'select', 'label', 'fieldset', 'legend', 'button'];
const STATES = ['focus', 'hover', 'invalid', 'disabled', 'placeholder'];
const BAD_VALUE = /[;{}<>\\@]|url\s*\(|expression|javascript:|image-set|-moz-binding|behavior/i;

function selectorAllowed(selector: string): boolean {
  const [base, state, ...rest] = selector.trim().split(/::?/);
  if (rest.length > 0 || !base) return false;
  if (state !== undefined && !STATES.includes(state)) return false;
  if (base.startsWith('#')) return FIELD_IDS.includes(base.slice(1));
  if (base.startsWith('.')) return /^\.[a-z][a-z-]{0,40}$/.test(base);
  return ELEMENTS.includes(base);
}

/** `{selector: {property: value}}` from the shop, as CSS text holding only what is allowed. */
export function sanitizeStyles(styles: unknown): string {
  if (!styles || typeof styles !== 'object') return '';
  const rules: string[] = [];
  for (const [selector, declarations] of Object.entries(styles as Record<string, unknown>).slice(0, 100)) {
    if (!selectorAllowed(selector) || !declarations || typeof declarations !== 'object') continue;
    const kept: string[] = [];
    for (const [property, value] of Object.entries(declarations as Record<string, unknown>)) {
      const v = typeof value === 'number' ? String(value) : value;
      if (!ALLOWED_PROPERTIES.has(property.toLowerCase()) || typeof v !== 'string' || v.length > 200 || BAD_VALUE.test(v)) continue;
      kept.push(`${property.toLowerCase()}: ${v}`);
    }
    if (kept.length) rules.push(`${selector.trim()} { ${kept.join('; ')}; }`);
  }
  return rules.join('\n');
}

/** Google Fonts stylesheets only (the frame's Content-Security-Policy allows nothing else). */
export function allowedFontUrls(fontUrls: unknown): string[] {
  if (!Array.isArray(fontUrls)) return [];
  return fontUrls.filter((u): u is string => typeof u === 'string' && /^https:\/\/fonts\.googleapis\.com\/css2?\?[^"'<>\s]{1,500}$/.test(u)).slice(0, 5);
}
