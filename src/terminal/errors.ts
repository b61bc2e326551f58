import type { DeviceFailure, DeviceFailureCode } from '../engine/lanes/driver-port';

/** How a driver call fails. Messages are for people and never carry card data. */
export class DeviceError extends Error implements DeviceFailure {
  override readonly name = 'DeviceError';
  constructor(
    readonly deviceCode: DeviceFailureCode,
    message: string,
  ) {
    super(message);
  }
}
