import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_CHANNELS, type DesktopSession, type LanewayBridge } from '../shared/bridge';

// Only these calls cross into the page: no ipcRenderer, no Node.
const bridge: LanewayBridge = {
  platform: 'electron',
  session: () => ipcRenderer.invoke(BRIDGE_CHANNELS.session) as Promise<DesktopSession>,
};

contextBridge.exposeInMainWorld('laneway', bridge);
