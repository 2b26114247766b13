import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, rmSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { publishFile } from '@virnucpro/atomic-file';

/** An HTTP status that means "this file is not there" (caller may try another name). */
export class NotFoundError extends Error {
  constructor(readonly url: string) {
    super(`not found (HTTP 404): ${url}`);
  }
}

/** The server could not be reached or the transfer broke off: the message names the URL and the reason. */
export class DownloadError extends Error {}

/** Why a fetch failed, from undici's `fetch failed` and its cause (e.g. `connect ECONNREFUSED 127.0.0.1:9`). */
export function networkReason(err: unknown): string {
  const e = err as Error & { cause?: unknown };
  const cause = e?.cause as (Error & { code?: string; errors?: Error[] }) | undefined;
  if (cause) {
    // Several addresses tried (AggregateError): the first one's reason.
    const first = cause.errors?.[0];
    return first?.message || cause.message || cause.code || String(cause);
  }
  return e?.message ?? String(err);
}

/** The downloaded bytes differ from what was expected (size or sha256). */
export class IntegrityError extends Error {}

export interface RemoteFacts {
  /** Size the server announced for the whole file (X-Linked-Size / Content-Length / Content-Range). */
  size?: number;
  /** sha256 the server announced (Hugging Face sends it as X-Linked-Etag for LFS files). */
  sha256?: string;
}

export interface DownloadResult {
  path: string;
  size: number;
  sha256: string;
  /** Bytes that were already on disk from an interrupted earlier attempt. */
  resumedFrom: number;
  remote: RemoteFacts;
}

export interface DownloadFileOptions {
  url: string;
  dest: string;
  expected?: { size?: number; sha256?: string };
  onBytes?: (n: number, total?: number) => void;
  fetchImpl?: typeof fetch;
  headers?: Record<string, string>;
}

const SHA256_RE = /^[0-9a-f]{64}$/;

function unquote(etag: string | null): string | undefined {
  if (!etag) return undefined;
  const v = etag.replace(/^W\//, '').replace(/"/g, '').toLowerCase();
  return SHA256_RE.test(v) ? v : undefined;
}

/**
 * Fetches `url` following redirects by hand, so the headers of the first hop (where the Hugging Face hub
 * puts X-Linked-Size and X-Linked-Etag = sha256) are not lost behind the CDN redirect.
 */
async function fetchWithFacts(url: string, init: RequestInit, fetchImpl: typeof fetch): Promise<{ response: Response; facts: RemoteFacts }> {
  const facts: RemoteFacts = {};
  let current = url;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetchImpl(current, { ...init, redirect: 'manual' }).catch((err: unknown) => {
      throw new DownloadError(`cannot download ${current}: ${networkReason(err)}`);
    });
    const linkedSize = response.headers.get('x-linked-size');
    if (linkedSize && facts.size === undefined) facts.size = Number(linkedSize);
    facts.sha256 ??= unquote(response.headers.get('x-linked-etag'));
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      await response.body?.cancel();
      current = new URL(response.headers.get('location')!, current).toString();
      continue;
    }
    return { response, facts };
  }
  throw new Error(`too many redirects: ${url}`);
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * Downloads one file to `dest` through `dest.part`. An existing `.part` is resumed with an HTTP Range
 * request (a server that ignores Range restarts it). The finished file is checked against the expected
 * size/sha256 (given, else announced by the server); on a mismatch the partial file is deleted and an
 * IntegrityError thrown, so a bad download is never left under the real name.
 */
export async function downloadFile(options: DownloadFileOptions): Promise<DownloadResult> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const part = `${options.dest}.part`;
  let have = existsSync(part) ? statSync(part).size : 0;
  const headers: Record<string, string> = { 'user-agent': 'virnucpro-ts', ...options.headers };
  if (have > 0) headers.range = `bytes=${have}-`;
  const { response, facts } = await fetchWithFacts(options.url, { headers }, fetchImpl);

  const expectedSize = options.expected?.size ?? facts.size;
  if (response.status === 404) {
    await response.body?.cancel();
    throw new NotFoundError(options.url);
  }
  if (response.status === 416 && have > 0) {
    // Nothing left to send: the .part is complete already (checked below), or longer than the file.
    await response.body?.cancel();
  } else if (response.status === 206 || response.status === 200) {
    if (response.status === 200) have = 0; // server ignored Range: start over
    const contentRange = response.headers.get('content-range');
    const total = contentRange?.match(/\/(\d+)$/)?.[1];
    if (total !== undefined) facts.size ??= Number(total);
    else if (response.status === 200 && response.headers.get('content-length')) facts.size ??= Number(response.headers.get('content-length'));
    const out = createWriteStream(part, { flags: have > 0 ? 'a' : 'w' });
    let received = have;
    options.onBytes?.(have, expectedSize ?? facts.size);
    const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      options.onBytes?.(chunk.length, expectedSize ?? facts.size);
    });
    await pipeline(body, out).catch((err: unknown) => {
      throw new DownloadError(`download of ${options.url} broke off after ${received} bytes: ${networkReason(err)} (run the command again to resume)`);
    });
  } else {
    await response.body?.cancel();
    throw new DownloadError(`cannot download ${options.url}: HTTP ${response.status} ${response.statusText}`);
  }

  const size = statSync(part).size;
  const wantSize = options.expected?.size ?? facts.size;
  if (wantSize !== undefined && size !== wantSize) {
    if (size > wantSize) rmSync(part, { force: true });
    throw new IntegrityError(`${options.dest}: got ${size} bytes, expected ${wantSize}${size < wantSize ? ' (incomplete; run the command again to resume)' : ''}`);
  }
  const sha256 = await sha256OfFile(part);
  const wantSha = options.expected?.sha256 ?? facts.sha256;
  if (wantSha !== undefined && sha256 !== wantSha) {
    rmSync(part, { force: true });
    throw new IntegrityError(`${options.dest}: sha256 ${sha256} does not match the expected ${wantSha}; the download was deleted (corrupted transfer or changed file)`);
  }
  await publishFile(part, options.dest);
  return { path: options.dest, size, sha256, resumedFrom: response.status === 206 ? have : 0, remote: facts };
}
