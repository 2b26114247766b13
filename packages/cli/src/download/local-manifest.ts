import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '@virnucpro/atomic-file';

export interface ManifestEntry {
  url: string;
  size: number;
  sha256: string;
  /** Where the expected hash came from: a built-in value, the server's announcement, or this download itself. */
  hashSource: 'known' | 'server' | 'recorded-on-first-download';
  downloadedAt: string;
}

/** `<models-dir>/manifest.json`: what was downloaded, with sizes and hashes for later checks. */
export class LocalManifest {
  readonly path: string;
  files: Record<string, ManifestEntry> = {};
  constructor(readonly dir: string) {
    this.path = join(dir, 'manifest.json');
    if (existsSync(this.path)) this.files = (JSON.parse(readFileSync(this.path, 'utf8')) as { files: Record<string, ManifestEntry> }).files ?? {};
  }
  save(): void {
    writeFileAtomicSync(this.path, JSON.stringify({ version: 1, files: this.files }, null, 2) + '\n');
  }
}
