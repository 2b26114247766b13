/** How a model is named in a ModelLoadError: an embedding model's label + " model", or the MLP. */
export type ModelLabel = 'ESM-2 model' | 'DNABERT-S model' | 'MLP';

/**
 * A model file that cannot be read (truncated, damaged, not a model): the user's to fix (the CLI exits 2). Thrown in
 * a feature worker, it comes back by its name (worker-error-classes.ts), whatever its message says.
 */
export class ModelLoadError extends Error {
  override readonly name = 'ModelLoadError';
}

/** The ModelLoadError for `model` at `path`, failed with `cause`. */
export function modelLoadError(model: ModelLabel, path: string, cause: unknown): ModelLoadError {
  return new ModelLoadError(`cannot load the ${model} ${path}: ${causeText(path, cause)}`);
}

/** The ModelLabel of an embedding model's descriptor label ("ESM-2" → "ESM-2 model", "DNABERT" → "DNABERT-S model"). */
export function modelLabel(label: string): ModelLabel {
  const named = DESCRIPTOR_LABELS[label];
  if (!named) throw new Error(`no ModelLabel for ${label}`);
  return named;
}

/** The descriptors' labels (their packages name them) → how a refusal names the model, as predict does. */
const DESCRIPTOR_LABELS: Record<string, ModelLabel> = { 'ESM-2': 'ESM-2 model', DNABERT: 'DNABERT-S model', 'DNABERT-S': 'DNABERT-S model' };

/** The cause's message without a leading `<path>: ` (the line names the path once). */
function causeText(path: string, cause: unknown): string {
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.startsWith(`${path}: `) ? text.slice(path.length + 2) : text;
}
