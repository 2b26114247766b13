import { ComputeSettingError } from '@virnucpro/compute';

/**
 * An error caused by what the user gave us (flags, config file, input file). The CLI prints its message
 * alone (no stack) and exits with ExitCode.badInput (2).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `fn`'s result; a setting @virnucpro/compute refuses (ComputeSettingError) becomes a UsageError. */
export function asUsage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof ComputeSettingError ? new UsageError(err.message) : err;
  }
}

/** `promise`, with a setting @virnucpro/compute refuses turned into a UsageError. */
export function asUsageAsync<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((err: unknown) => {
    throw err instanceof ComputeSettingError ? new UsageError(err.message) : err;
  });
}

/**
 * A model file that cannot be read (truncated, damaged, not a model): a usage error (exit 2). Its message
 * starts with `cannot load the <model> <path>: ` so that it is recognised also when it comes back from a
 * worker process as text (see `modelLoadMessageIn`).
 */
export class ModelLoadError extends UsageError {
  constructor(model: ModelLabel, path: string, cause: unknown) {
    super(`cannot load the ${model} ${path}: ${causeText(path, cause)}`);
  }
}

/** The cause's message without a leading `<path>: ` (the line names the path once). */
function causeText(path: string, cause: unknown): string {
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.startsWith(`${path}: `) ? text.slice(path.length + 2) : text;
}

/** How a ModelLoadError names the model: a descriptor's label + " model", or the MLP. */
export type ModelLabel = 'ESM-2 model' | 'DNABERT-S model' | 'MLP';

/** The ModelLabel of an embedding model's descriptor label ("ESM-2" → "ESM-2 model", "DNABERT" → "DNABERT-S model"). */
export function modelLabel(label: string): ModelLabel {
  const named = DESCRIPTOR_LABELS[label];
  if (!named) throw new Error(`no ModelLabel for ${label}`);
  return named;
}

/** The descriptors' labels (their packages name them) → how a refusal names the model, as predict does. */
const DESCRIPTOR_LABELS: Record<string, ModelLabel> = { 'ESM-2': 'ESM-2 model', DNABERT: 'DNABERT-S model', 'DNABERT-S': 'DNABERT-S model' };

const MODEL_LOAD_MESSAGE = /cannot load the (?:ESM-2 model|DNABERT-S model|MLP) [\s\S]*$/;

/** The ModelLoadError message inside another error's text (a worker's start failure), if there is one. */
export function modelLoadMessageIn(text: string): string | undefined {
  return MODEL_LOAD_MESSAGE.exec(text)?.[0];
}
