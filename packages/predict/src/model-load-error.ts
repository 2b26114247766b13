/** How a model is named in a ModelLoadError: an embedding model's label + " model", or the MLP. */
export type ModelLabel = 'ESM-2 model' | 'DNABERT-S model' | 'MLP';

/**
 * A model file that cannot be read (truncated, damaged, not a model): the user's to fix (the CLI exits 2). Its
 * message starts with `cannot load the <model> <path>: ` so that it is recognised also when it comes back from a
 * worker as text (`modelLoadMessageIn`).
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

const MODEL_LOAD_MESSAGE = /cannot load the (?:ESM-2 model|DNABERT-S model|MLP) [\s\S]*$/;

/** The ModelLoadError message inside another error's text (a worker's start failure), if there is one. */
export function modelLoadMessageIn(text: string): string | undefined {
  return MODEL_LOAD_MESSAGE.exec(text)?.[0];
}

/** The cause's message without a leading `<path>: ` (the line names the path once). */
function causeText(path: string, cause: unknown): string {
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.startsWith(`${path}: `) ? text.slice(path.length + 2) : text;
}
