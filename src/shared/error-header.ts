/**
 * Ours, beside the reference's gateway error body (`{success: false, errors: [code], response_code}`),
 * which carries a code only and must stay exactly so (clients build their message from every key
 * they find): the engine's own words for the refusal, as `{error, code, details?}` JSON,
 * percent-encoded (a header is ASCII). The screens show these words beside the field they name.
 */
export const GATEWAY_ERROR_HEADER = 'Laneway-Error';

export interface GatewayErrorWords {
  error: string;
  code: string;
  details?: Array<{ field?: string; message: string }>;
}

/** The header's value read back; undefined when absent or unreadable. */
export function readGatewayErrorHeader(value: string | null | undefined): GatewayErrorWords | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(decodeURIComponent(value)) as Partial<GatewayErrorWords>;
    return typeof parsed.error === 'string' && typeof parsed.code === 'string' ? (parsed as GatewayErrorWords) : undefined;
  } catch {
    return undefined;
  }
}
