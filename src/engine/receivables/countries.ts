import { iso31661, iso31662 } from 'iso-3166';

/**
 * ISO 3166 from a maintained data package (`iso-3166`): country codes and names (3166-1) and
 * their subdivisions (3166-2). Province fields hold the second part of a 3166-2 code ("ON" for
 * CA-ON), as the reference API describes shipping_province.
 */
const byAlpha2 = new Map<string, string>();
const alpha3To2 = new Map<string, string>();
const alpha2To3 = new Map<string, string>();
for (const c of iso31661) {
  byAlpha2.set(c.alpha2, c.name);
  alpha3To2.set(c.alpha3, c.alpha2);
  alpha2To3.set(c.alpha2, c.alpha3);
}

const subdivisions = new Map<string, Map<string, string>>();
for (const s of iso31662) {
  const dash = s.code.indexOf('-');
  const country = s.code.slice(0, dash);
  const local = s.code.slice(dash + 1);
  let map = subdivisions.get(country);
  if (!map) subdivisions.set(country, (map = new Map()));
  map.set(local, s.name);
}

export function countryName(alpha2: string): string | undefined {
  return byAlpha2.get(alpha2.toUpperCase());
}

/** A country code as clients send it (alpha-2 or alpha-3, any case) to alpha-2, or undefined. */
export function normalizeCountry(value: string): string | undefined {
  const up = value.trim().toUpperCase();
  if (byAlpha2.has(up)) return up;
  return alpha3To2.get(up);
}

/** A country code (alpha-2 or alpha-3, any case) as the order's 3-letter ISO code, or undefined. */
export function countryAlpha3(value: string): string | undefined {
  const two = normalizeCountry(value);
  return two ? alpha2To3.get(two) : undefined;
}

/**
 * A province as clients send it ("ON", "on", "CA-ON") to the subdivision's local part, or
 * undefined when the country has no such subdivision.
 */
export function normalizeProvince(country: string, value: string): string | undefined {
  const map = subdivisions.get(country);
  if (!map) return undefined;
  let up = value.trim().toUpperCase();
  if (up.startsWith(`${country}-`)) up = up.slice(country.length + 1);
  return map.has(up) ? up : undefined;
}

/** GET /api/reference_data/v1/country_codes: countries by code, provinces per country. */
export function countryCodes(): { countries: Record<string, string>; provinces: Record<string, Array<Record<string, string>>> } {
  const countries: Record<string, string> = {};
  for (const [code, name] of [...byAlpha2].sort((a, b) => a[1].localeCompare(b[1], 'en'))) countries[code] = name;
  const provinces: Record<string, Array<Record<string, string>>> = {};
  for (const [country, map] of subdivisions) {
    provinces[country] = [...map].sort((a, b) => a[1].localeCompare(b[1], 'en')).map(([code, name]) => ({ [code]: name }));
  }
  return { countries, provinces };
}
