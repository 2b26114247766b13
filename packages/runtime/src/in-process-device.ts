import type { DeviceInfo } from './plugin.js';

/**
 * The device of a pool started with `thread` (the in-process mode): one worker thread of this process, on
 * whatever backend its model starts there. Telemetry and run summaries name it "in-process".
 */
export const inProcessDevice: Readonly<DeviceInfo> = Object.freeze({ label: 'in-process', kind: 'cpu', id: 0, env: {} });
