/** An error's message, first line only (a reason in a list of reasons). */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === 'object' && error && 'message' in error
    ? String((error as { message: unknown }).message) : String(error);
  return message.split('\n')[0];
}
