// An error as plain data, so that it crosses the worker boundary (IPC or postMessage) with its kind: both channels
// clone an Error as a bare Error (a subclass's name, code and own fields are lost), and a parent that then had to
// recognise a failure by its wording would change behaviour whenever a message is reworded.
// The parent rebuilds it as a WorkerError (../src/worker-error.ts). Plain JavaScript, like the worker entry.

/** Fields carried separately, not among `data`. */
const OWN_FIELDS = new Set(['name', 'message', 'stack', 'code', 'cause']);
/** Nesting kept of a field's value and of a chain of causes (beyond it: dropped, so a cycle cannot loop). */
const MAX_DEPTH = 4;

/** `error` (anything thrown) as { name, message, stack?, code?, data?, cause? }. */
export function serializeError(error, depth = 0) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const out = { name: String(error.name || error.constructor?.name || 'Error'), message: String(error.message) };
  if (typeof error.stack === 'string') out.stack = error.stack;
  if (typeof error.code === 'string' || typeof error.code === 'number') out.code = error.code;
  const data = {};
  for (const [key, value] of Object.entries(error)) {
    if (!OWN_FIELDS.has(key) && isPlainData(value, 0)) data[key] = value;
  }
  if (Object.keys(data).length > 0) out.data = data;
  if (error.cause !== undefined && depth < MAX_DEPTH) out.cause = serializeError(error.cause, depth + 1);
  return out;
}

/** Values both channels copy faithfully: primitives, arrays and plain objects of them (no functions, class instances). */
function isPlainData(value, depth) {
  if (value === null || ['string', 'number', 'boolean', 'bigint', 'undefined'].includes(typeof value)) return true;
  if (depth >= MAX_DEPTH || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.every((v) => isPlainData(v, depth + 1));
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && Object.values(value).every((v) => isPlainData(v, depth + 1));
}
