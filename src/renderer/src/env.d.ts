import type { LanewayBridge } from '../../shared/bridge';

declare global {
  interface Window {
    /** Present only inside the Electron window (see src/preload). */
    laneway?: LanewayBridge;
  }
}
