import { LOCALE } from '../format';
import { GATEWAY_ERROR_HEADER, readGatewayErrorHeader } from '../../../shared/error-header';

/**
 * The screens' only way to the engine: the same HTTP API integrations use. Errors arrive in the
 * API's one error shape and are thrown as ApiError with its stable code.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The engine's field errors, to show beside the fields (the back office's forms). */
    readonly details: Array<{ field?: string; message: string }> = [],
  ) {
    super(message);
  }
}

export interface Credentials {
  baseUrl: string;
  authorization: string;
}

export async function apiFetch<T>(creds: Credentials, method: string, path: string, body?: unknown): Promise<T> {
  return (await apiFetchWithHeaders<T>(creds, method, path, body)).data;
}

/** apiFetch, with the answer's headers too (those of ours some answers carry beside the reference's body). */
export async function apiFetchWithHeaders<T>(creds: Credentials, method: string, path: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
  let res: Response;
  try {
    res = await fetch(`${creds.baseUrl}${path}`, {
      method,
      headers: {
        Authorization: creds.authorization,
        // Messages word amounts the way this screen shows them.
        'Accept-Language': LOCALE,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'network', 'Laneway is not answering. Check that it is running, then try again.');
  }
  const text = await res.text();
  if (!res.ok) throw errorOf(res, text);
  return { data: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
}

/** The API's error answer (its body's text) as an ApiError with its stable code. */
export function errorOf(res: Response, text: string): ApiError {
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  const e = (data ?? {}) as { error?: string; message?: string; code?: string | number; errors?: string[]; details?: Array<{ field?: string; message: string }> };
  // A gateway operation's body is the reference's codes only: the engine's words come in a header of ours.
  const words = readGatewayErrorHeader(res.headers.get(GATEWAY_ERROR_HEADER));
  if (words) return new ApiError(res.status, words.code, words.error, words.details ?? []);
  // A shape whose `error` is the reference's code (a wallet method's) says it in words as `message`.
  return new ApiError(res.status, String(e.code ?? e.errors?.[0] ?? res.status), e.message ?? e.error ?? e.errors?.join(', ') ?? res.statusText, e.details ?? []);
}

export const basic = (token: string, key: string) => `Basic ${btoa(`${token}:${key}`)}`;
export const bearer = (jwt: string) => `Bearer ${jwt}`;
