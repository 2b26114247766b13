// The words of options that predict and every `embed <model>` command share, so their --help says the same
// thing. Figures (speed, accuracy) stay out of --help: they go stale, and docs/benchmarks.md keeps them.

/** What a DNA input may be, where a command takes one. */
export const INPUT_KINDS = 'DNA FASTA or FASTQ file (plain or gzip; - for standard input)';

export const BACKEND_HELP = 'compute backend of the embedding models';

export const PRECISION_HELP = 'float precision; fp16, bf16 and fp8 (experimental) on cuda only';
export const PRECISION_DEFAULT = 'fp16 on cuda, fp32 elsewhere';

export const TOKEN_BUDGET_DEFAULT = '16384 on cuda, 4096 elsewhere';

/** The one pointer to the figures, in the epilogue of the commands that compute embeddings. */
export const FIGURES_POINTER = 'Speed and accuracy of each backend and precision: docs/benchmarks.md.';
