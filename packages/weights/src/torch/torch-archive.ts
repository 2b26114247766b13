// Random access into a torch zip checkpoint (torch.save since 1.6):
//   <prefix>/data.pkl, <prefix>/data/<key> (raw storages), <prefix>/byteorder, …
// The zip directory is read with yauzl; stored (uncompressed) entries — what
// torch writes — are read with one positioned read straight into the
// storage's own buffer; compressed entries (re-zipped archives) are inflated.
import { open as openFile, type FileHandle } from 'node:fs/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { readExactly } from '../file-io.js';

export class TorchArchive {
  private constructor(
    readonly path: string,
    readonly prefix: string,
    private readonly zip: ZipFile,
    private readonly entries: Map<string, Entry>,
    private readonly handle: FileHandle,
  ) {}

  static async open(path: string): Promise<TorchArchive> {
    const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, decodeStrings: true }).catch((error: Error) => {
      throw new Error(`${path}: not a readable zip archive (${error.message})`);
    });
    try {
      const entries = await listEntries(zip);
      const pickles = [...entries.keys()].filter((name) => /^[^/]+\/data\.pkl$/.test(name));
      if (pickles.length === 0) throw new Error(`${path}: zip archive has no <name>/data.pkl, so it is not a torch checkpoint`);
      if (pickles.length > 1) throw new Error(`${path}: zip archive has several data.pkl records (${pickles.join(', ')})`);
      const prefix = pickles[0].slice(0, -'/data.pkl'.length);
      const handle = await openFile(path, 'r');
      return new TorchArchive(path, prefix, zip, entries, handle);
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  has(relativeName: string): boolean {
    return this.entries.has(`${this.prefix}/${relativeName}`);
  }

  sizeOf(relativeName: string): number {
    return this.entry(relativeName).uncompressedSize;
  }

  /** The bytes of `<prefix>/<relativeName>` in a fresh ArrayBuffer (offset 0, so aligned for any dtype). */
  async read(relativeName: string): Promise<Uint8Array> {
    const entry = this.entry(relativeName);
    const out = new Uint8Array(new ArrayBuffer(entry.uncompressedSize));
    if (entry.compressionMethod === 0) {
      const { fileDataStart } = await this.zip.readLocalFileHeaderPromise(entry, { minimal: true });
      await readExactly(this.handle, out, fileDataStart, `${this.path}: ${entry.fileName}`);
      return out;
    }
    const stream = await this.zip.openReadStreamPromise(entry);
    let filled = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (filled + chunk.length > out.length) throw new Error(`${this.path}: ${entry.fileName} inflates past its recorded size`);
      out.set(chunk, filled);
      filled += chunk.length;
    }
    if (filled !== out.length) throw new Error(`${this.path}: ${entry.fileName} inflated to ${filled} bytes, expected ${out.length}`);
    return out;
  }

  async readText(relativeName: string): Promise<string | undefined> {
    return this.has(relativeName) ? new TextDecoder().decode(await this.read(relativeName)) : undefined;
  }

  async close(): Promise<void> {
    this.zip.close();
    await this.handle.close();
  }

  private entry(relativeName: string): Entry {
    const entry = this.entries.get(`${this.prefix}/${relativeName}`);
    if (!entry) throw new Error(`${this.path}: archive has no record ${this.prefix}/${relativeName}`);
    return entry;
  }
}

function listEntries(zip: ZipFile): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, Entry>();
    zip.on('entry', (entry: Entry) => {
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}
