// Where each model lives upstream and where it goes in the models folder. The models folder layout is
// also what `--model-type` resolution expects (see pipeline/resolve-models.ts).

export const ESM_SIZES = ['8M', '35M', '150M', '650M', '3B', '15B'] as const;
export type EsmSize = (typeof ESM_SIZES)[number];

/** Hugging Face repositories of the ESM-2 checkpoints (fair-esm names). */
export const ESM_REPOS: Record<EsmSize, string> = {
  '8M': 'facebook/esm2_t6_8M_UR50D',
  '35M': 'facebook/esm2_t12_35M_UR50D',
  '150M': 'facebook/esm2_t30_150M_UR50D',
  '650M': 'facebook/esm2_t33_650M_UR50D',
  '3B': 'facebook/esm2_t36_3B_UR50D',
  '15B': 'facebook/esm2_t48_15B_UR50D',
};

export const DNABERT_REPO = 'zhihan1996/DNABERT-S';
export const DNABERT_DIR = 'DNABERT-S';
export const esmDirName = (size: EsmSize) => ESM_REPOS[size].split('/')[1];

/** The original VirNucPro repository, which ships the two trained MLPs. */
export const VIRNUCPRO_REPO = 'Li-Jing-1997/VirNucPro';
export const MLP_FILES = { 300: '300_model.pth', 500: '500_model.pth' } as const;

export const DEFAULT_HF_BASE = 'https://huggingface.co';
export const DEFAULT_GITHUB_BASE = 'https://github.com';

export const hfFileUrl = (base: string, repo: string, file: string) => `${base.replace(/\/$/, '')}/${repo}/resolve/main/${file}`;
/** github.com/<repo>/raw/<branch>/<file> serves plain blobs and redirects Git LFS files to their content. */
export const githubFileUrl = (base: string, repo: string, file: string) => `${base.replace(/\/$/, '')}/${repo}/raw/main/${file}`;

/**
 * Expected sizes/hashes known before downloading, keyed by `<models-dir-relative path>`. Only values with a
 * traceable source are listed; everything else is recorded on first download (the Hugging Face hub also
 * announces sha256 for its large files, which is checked when present).
 */
export const KNOWN_FILES: Record<string, { size?: number; sha256?: string; source: string }> = {
  'DNABERT-S/tokenizer.json': {
    size: 168_203,
    sha256: '667f5a0e6e9630f7052b004784dda7c7aeba395cc4ca3c01b11b02e6aa29d7b1',
    source: 'DNABERT-S tokenizer.json as published (same bytes in dengdengf/dcvbin DNABERT-S/tokenizer.json)',
  },
  'DNABERT-S/pytorch_model.bin': {
    size: 468_320_053,
    source: 'Git LFS pointer of DNABERT-S/pytorch_model.bin (dengdengf/dcvbin)',
  },
};
