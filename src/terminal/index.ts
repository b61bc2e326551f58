export { createSerialLaneDriver, type SerialDriverOptions } from './serial-driver';
export { DeviceSession, type SessionOptions } from './device-session';
export { SerialTransport } from './serial-transport';
export { SimulatedDevice, SCENARIOS, FAST_PACE, HUMAN_PACE, type Scenario, type SimulatorOptions } from './simulator/device';
