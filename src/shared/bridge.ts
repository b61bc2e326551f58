/**
 * The narrow bridge the Electron preload exposes as `window.laneway`. Declared once here: the
 * preload implements it, the renderer consumes it. In a plain browser it is absent and the screens
 * sign in with API credentials instead.
 */
export interface DesktopSession {
  /** Base URL of the embedded API, e.g. http://127.0.0.1:4747 */
  apiUrl: string;
  /** A short-lived Bearer token for this desktop session. */
  jwt: string;
}

export interface LanewayBridge {
  readonly platform: 'electron';
  session(): Promise<DesktopSession>;
}

export const BRIDGE_CHANNELS = { session: 'laneway:session' } as const;
