import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, shell } from 'electron';
import { launch, type Launched } from '../cli/launch';
import { DEFAULT_PORT } from '../cli/paths';
import { BRIDGE_CHANNELS, type DesktopSession } from '../shared/bridge';
import { desktopCredential } from './desktop-credential';
import { keychainProtector } from './key-protector';

const here = fileURLToPath(new URL('.', import.meta.url));
let launched: Launched | undefined;
let mainWindow: BrowserWindow | undefined;

// One window per user: a second launch hands over to the first (which comes to the front) and
// quits before it touches the data folder, whose own lock would refuse it anyway.
const firstInstance = app.requestSingleInstanceLock();
if (!firstInstance) app.quit();
app.on('second-instance', () => {
  const win = mainWindow && !mainWindow.isDestroyed() ? mainWindow : BrowserWindow.getAllWindows()[0];
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
});

async function createWindow(l: Launched): Promise<void> {
  const origin = new URL(l.server.url).origin;
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    title: 'Laneway',
    webPreferences: {
      preload: join(here, '../preload/index.cjs'),
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
    },
  });
  // The window shows our screens only: other pages open in the system browser, never inside.
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, url) => {
    if (new URL(url).origin !== origin) event.preventDefault();
  });
  // A form with unsaved input asks before the page goes (its beforeunload): a browser asks the
  // person itself, Electron only through this event, else the window would just refuse to close or reload.
  win.webContents.on('will-prevent-unload', (event) => {
    const choice = dialog.showMessageBoxSync(win, { type: 'question', buttons: ['Stay', 'Discard'], defaultId: 0, cancelId: 0, title: 'Laneway', message: 'Discard your changes?', detail: 'What you typed is not saved yet.' });
    // Discard: the page's refusal to unload is overridden.
    if (choice === 1) event.preventDefault();
  });
  mainWindow = win;
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = undefined;
  });
  await win.loadURL(`${l.server.url}/app/`);
}

app.whenReady().then(async () => {
  if (!firstInstance) return;
  const keyProtector = keychainProtector();
  try {
    launched = await launch({
      dataDir: process.env.LANEWAY_DATA_DIR ?? app.getPath('userData'),
      port: process.env.LANEWAY_PORT ? Number(process.env.LANEWAY_PORT) : DEFAULT_PORT,
      uiDir: join(here, '../renderer'),
      program: 'desktop',
      ...(keyProtector ? { keyProtector } : {}),
      ...(process.env.LANEWAY_SQLITE_BINDING ? { sqliteBinding: process.env.LANEWAY_SQLITE_BINDING } : {}),
    });
  } catch (err) {
    // Port in use, data folder held by `serve`: say it where the person looks, then quit.
    const message = err instanceof Error ? err.message : String(err);
    console.error(`Laneway could not start: ${message}`);
    dialog.showErrorBox('Laneway could not start', message);
    app.exit(1);
    return;
  }
  for (const line of launched.banner) console.log(line);
  const l = launched;
  ipcMain.handle(BRIDGE_CHANNELS.session, async (event): Promise<DesktopSession> => {
    // Answer our own page only.
    if (new URL(event.senderFrame?.url ?? 'about:blank').origin !== new URL(l.server.url).origin) throw new Error('not allowed');
    const token = await desktopCredential(l.engine);
    // The owner's own window: settings too (lanes, cashiers, the payment frame's sites), never credentials.
    const { jwt } = await l.engine.account.credentials.issueJwt(token, 1, { scopes: ['api', 'settings'] });
    return { apiUrl: l.server.url, jwt };
  });
  await createWindow(l);
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) void createWindow(l);
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('will-quit', (event) => {
  if (!launched) return;
  event.preventDefault();
  const l = launched;
  launched = undefined;
  void l.stop().finally(() => app.quit());
});
