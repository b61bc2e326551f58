import type { LaneDevice, LaneDeviceListener, LaneDriver, SerialSettings } from '../engine/lanes/driver-port';
import { DeviceSession, type SessionOptions } from './device-session';
import { SerialTransport, type SerialTransportOptions } from './serial-transport';

export interface SerialDriverOptions {
  session?: Omit<SessionOptions, 'baudRate'>;
  transport?: SerialTransportOptions;
}

/** The real lane driver: each lane is a DeviceSession over its own serial port. */
export function createSerialLaneDriver(options: SerialDriverOptions = {}): LaneDriver {
  return {
    open(_laneid: string, settings: SerialSettings, listener: LaneDeviceListener): LaneDevice {
      const transport = new SerialTransport(settings, options.transport);
      return new DeviceSession(transport, listener, { ...(options.session ?? {}), baudRate: settings.baudRate });
    },
  };
}
