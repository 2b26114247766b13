import type { SerializedError } from '../src/protocol.js';

export function serializeError(error: unknown): SerializedError;
