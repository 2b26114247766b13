// The subset of a Hugging Face `tokenizer.json` that a DNABERT tokenizer needs,
// validated so an unsupported file fails loudly instead of tokenizing wrongly.

/** Parsed, checked content of a BPE `tokenizer.json`. */
export interface BpeTokenizerSpec {
  /** token string → id */
  vocab: Map<string, number>;
  /** merge rules in rank order, each a [left, right] pair of token strings */
  merges: Array<[string, string]>;
  /** special tokens that are matched literally in the input before BPE (HF `added_tokens`) */
  addedTokens: Map<string, number>;
  unkId: number;
  /** ids placed before / after the sequence by the single-sequence template */
  prefixIds: number[];
  suffixIds: number[];
  padId: number;
}

type Json = Record<string, unknown>;

function fail(source: string, what: string): never {
  throw new Error(`${source}: unsupported tokenizer.json: ${what}`);
}

function parseMerge(merge: unknown, source: string, index: number): [string, string] {
  if (typeof merge === 'string') {
    const parts = merge.split(' ');
    if (parts.length !== 2) fail(source, `merges[${index}] "${merge}" is not "left right"`);
    return [parts[0], parts[1]];
  }
  if (Array.isArray(merge) && merge.length === 2 && merge.every((p) => typeof p === 'string')) {
    return [merge[0] as string, merge[1] as string];
  }
  return fail(source, `merges[${index}] is neither "left right" nor [left, right]`);
}

/** Resolves a TemplateProcessing single-sequence template to the ids around `$A`. */
function templateIds(post: Json | null, vocab: Map<string, number>, source: string): { prefixIds: number[]; suffixIds: number[] } {
  if (post === null) return { prefixIds: [], suffixIds: [] };
  if (post.type !== 'TemplateProcessing') fail(source, `post_processor type ${String(post.type)} (only TemplateProcessing)`);
  const prefixIds: number[] = [];
  const suffixIds: number[] = [];
  let seenSequence = false;
  const specials = (post.special_tokens ?? {}) as Record<string, { ids: number[] }>;
  for (const piece of post.single as Json[]) {
    if ('Sequence' in piece) {
      seenSequence = true;
      continue;
    }
    const name = (piece.SpecialToken as { id: string }).id;
    const ids = specials[name]?.ids ?? (vocab.has(name) ? [vocab.get(name)!] : fail(source, `template token ${name} has no id`));
    (seenSequence ? suffixIds : prefixIds).push(...ids);
  }
  return { prefixIds, suffixIds };
}

/**
 * Checks that `json` is a tokenizer this package reproduces exactly: BPE, no normalizer,
 * Whitespace (or no) pre-tokenizer, one [UNK] per unknown character, no byte fallback, no
 * subword affixes, and a vocab whose characters are all word characters — the last makes
 * "any character outside the vocab or whitespace ends a run" equal to HF's Whitespace
 * pre-tokenization followed by per-character [UNK]s. The stored `padding` and `truncation`
 * sections are deliberately ignored (DNABERT-S stores a training-time `Fixed 2000` pad).
 */
export function parseTokenizerJson(json: unknown, source = 'tokenizer.json'): BpeTokenizerSpec {
  const root = json as Json;
  const model = root?.model as Json | undefined;
  if (!model || model.type !== 'BPE') fail(source, `model.type must be BPE, got ${String(model?.type)}`);
  if (root.normalizer != null) fail(source, 'a normalizer is set (DNABERT tokenizers have none)');
  const pre = root.pre_tokenizer as Json | null;
  if (pre != null && pre.type !== 'Whitespace') fail(source, `pre_tokenizer ${String(pre.type)} (only Whitespace)`);
  if (model.fuse_unk) fail(source, 'fuse_unk true');
  if (model.byte_fallback) fail(source, 'byte_fallback true');
  if (model.continuing_subword_prefix || model.end_of_word_suffix) fail(source, 'subword prefix/suffix set');
  if (model.dropout != null && model.dropout !== 0) fail(source, 'BPE dropout set');

  const vocab = new Map<string, number>(Object.entries(model.vocab as Record<string, number>));
  const addedTokens = new Map<string, number>();
  for (const t of (root.added_tokens ?? []) as Array<{ id: number; content: string; lstrip?: boolean; rstrip?: boolean; single_word?: boolean }>) {
    if (t.lstrip || t.rstrip || t.single_word) fail(source, `added token ${t.content} uses lstrip/rstrip/single_word`);
    addedTokens.set(t.content, t.id);
    vocab.set(t.content, t.id);
  }
  const wordChar = /^[\p{L}\p{N}\p{M}_]$/u;
  for (const token of Object.keys(model.vocab as object)) {
    if (addedTokens.has(token)) continue;
    for (const ch of token) if (!wordChar.test(ch)) fail(source, `vocab token ${JSON.stringify(token)} has a non-word character`);
  }
  const unk = model.unk_token as string | null;
  if (unk == null || !vocab.has(unk)) fail(source, 'unk_token missing from vocab');
  const merges = (model.merges as unknown[]).map((m, i) => parseMerge(m, source, i));
  const { prefixIds, suffixIds } = templateIds(root.post_processor as Json | null, vocab, source);
  const padId = vocab.get('[PAD]') ?? vocab.get(unk)!;
  return { vocab, merges, addedTokens, unkId: vocab.get(unk)!, prefixIds, suffixIds, padId };
}
