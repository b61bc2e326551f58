import { createInterface } from 'node:readline';
import { parseArgs, intFlag } from './args';
import { SerialTransport } from '../terminal/serial-transport';
import { FAST_PACE, HUMAN_PACE, SCENARIOS, SimulatedDevice, type Scenario } from '../terminal/simulator/device';
import { TEST_CARDS, maskCard, type EntryMode } from '../terminal/simulator/cards';
import { renderScreen } from '../terminal/simulator/screen';

const USAGE = `Usage: npm run terminal-sim -- --port PATH [options]

A payment device on the far end of a serial port, speaking the lane protocol
(docs/terminal-protocol.md). Make a pair of ports with socat, give one to a lane
and the other to the simulator:

  socat -d -d pty,raw,echo=0,link=/tmp/lane1-host pty,raw,echo=0,link=/tmp/lane1-device
  npm run terminal-sim -- --port /tmp/lane1-device

Options:
  --port PATH           serial port of the device end (required)
  --baud N              baud rate (default 115200)
  --scenario NAME       ${SCENARIOS.join(', ')} (default approve; dashes allowed)
  --card PAN            the card the customer presents (default: Visa 4895281000000006)
  --entry MODE          chip, contactless, swipe or manual (default: the card's usual way)
  --tip PERCENT         the tip the customer picks when asked (default 0)
  --pace fast|human     how quickly the customer acts (default human)
  --interactive         the customer acts only when you type (see below)
  --silence-ms N        scenario disconnect: how long the device goes silent (default 10000)
  --card-timeout-ms N   wait this long for a card instead of what the host asks
  --firmware TEXT       firmware version to report

Sandbox test cards: ${TEST_CARDS.map((c) => `${c.brand} ${c.pan}`).join(', ')}.
The last one declines, and so does any amount ending in .01.

While it runs, type: card [PAN] [chip|contactless|swipe|manual] (present a card), cancel, remove,
scenario NAME, reset (power cycle), help, quit.`;

function scenarioOf(raw: string | undefined): Scenario {
  const name = (raw ?? 'approve').replace(/-/g, '_');
  if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`unknown scenario ${raw}; one of ${SCENARIOS.join(', ')}`);
  return name as Scenario;
}

const ENTRIES = ['chip', 'contactless', 'swipe', 'manual'] as const;
function entryOf(raw: string | undefined): EntryMode | undefined {
  if (raw === undefined) return undefined;
  if (!(ENTRIES as readonly string[]).includes(raw)) throw new Error(`unknown entry mode ${raw}; one of ${ENTRIES.join(', ')}`);
  return raw as EntryMode;
}

function stamp(): string {
  return new Date().toISOString().slice(11, 23);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.has('help') || !args.get('port') || args.get('port') === 'true') {
    console.log(USAGE);
    if (!args.has('help')) process.exitCode = 2;
    return;
  }
  const path = args.get('port') ?? '';
  const baudRate = intFlag(args, 'baud', 115200) ?? 115200;
  const scenario = scenarioOf(args.get('scenario'));
  const card = args.get('card');
  if (card !== undefined && !/^\d{12,19}$/.test(card)) throw new Error('--card must be 12 to 19 digits');
  const entry = entryOf(args.get('entry'));
  const tipPercent = intFlag(args, 'tip', 0) ?? 0;
  const pace = args.get('pace') === 'fast' ? FAST_PACE : HUMAN_PACE;
  const interactive = args.has('interactive');
  const silenceMs = intFlag(args, 'silence-ms', undefined);
  const cardTimeoutMs = intFlag(args, 'card-timeout-ms', undefined);

  let lastEvent = '';
  const transport = new SerialTransport({ path, baudRate, dataBits: 8, parity: 'none', stopBits: 1 }, { maxBackoffMs: 1000 });
  const device = new SimulatedDevice(transport, {
    scenario,
    ...(card ? { card } : {}),
    ...(entry ? { entry } : {}),
    tipPercent,
    pace,
    interactive,
    ...(silenceMs !== undefined ? { silenceMs } : {}),
    ...(cardTimeoutMs !== undefined ? { cardTimeoutMs } : {}),
    ...(args.get('firmware') ? { firmware: args.get('firmware') } : {}),
    link: { baudRate },
    onScreen: (lines) => console.log(`${stamp()} screen\n${renderScreen(lines, 'DEVICE')}`),
    onEvent: (text) => {
      // A missing port is retried every second: say so once, not every time.
      if (text === lastEvent && /not found|in use|permission/.test(text)) return;
      lastEvent = text;
      console.log(`${stamp()} ${text}`);
    },
  });
  console.log(`Laneway terminal simulator on ${path} at ${baudRate} baud, scenario ${scenario}${card ? `, card ${maskCard(card)}` : ''}. Ctrl-C to stop.`);
  device.start();

  // The port's own timers never keep the process alive (a missing port must not end the device).
  const keepAlive = setInterval(() => undefined, 1 << 30);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(keepAlive);
    await device.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  if (process.stdin.readable && !process.stdin.destroyed) {
    const rl = createInterface({ input: process.stdin });
    rl.on('line', (line) => {
      const [cmd, ...rest] = line.trim().split(/\s+/);
      try {
        switch (cmd) {
          case 'card':
          case 'c':
            if (!device.present(rest[0], entryOf(rest[1]))) console.log('(no payment is waiting for a card)');
            break;
          case 'cancel':
          case 'x':
            if (!device.customerCancel()) console.log('(nothing to cancel)');
            break;
          case 'remove':
          case 'r':
            if (!device.removeCard()) console.log('(no card is in the reader)');
            break;
          case 'scenario':
            device.setScenario(scenarioOf(rest[0]));
            break;
          case 'reset':
            device.restart();
            break;
          case 'quit':
          case 'q':
            void stop();
            break;
          case 'help':
            console.log(USAGE);
            break;
          case '':
          case undefined:
            break;
          default:
            console.log(`unknown command ${cmd}; type help`);
        }
      } catch (err) {
        console.log(err instanceof Error ? err.message : String(err));
      }
    });
  }
}

main().catch((err: unknown) => {
  console.error(`terminal-sim: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
