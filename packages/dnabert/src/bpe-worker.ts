// The thread a BpePool starts: the same BpeTokenizer as the main thread (so the same ids), loaded from the
// tokenizer.json the pool names, encoding each chunk of sequences it is sent. A chunk's ids come back as one
// transferred Int32Array and the length of each sequence's ids (one copy-free message, not one array a sequence).
// Protocol: see bpe-pool.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { BpeTokenizer } from './bpe-tokenizer.js';
import type { ChunkRequest, ChunkReply, WorkerData } from './bpe-pool.js';

const port = parentPort!;
const { tokenizerPath } = workerData as WorkerData;

BpeTokenizer.fromFile(tokenizerPath).then(
  (tokenizer) => {
    port.on('message', (request: ChunkRequest) => {
      const reply = encodeChunk(tokenizer, request);
      port.postMessage(reply, 'ids' in reply ? [reply.ids.buffer as ArrayBuffer, reply.lengths.buffer as ArrayBuffer] : []);
    });
    port.postMessage({ ready: true });
  },
  (error: Error) => port.postMessage({ loadError: error.message }),
);

function encodeChunk(tokenizer: BpeTokenizer, { chunk, sequences }: ChunkRequest): ChunkReply {
  const parts: Int32Array[] = new Array(sequences.length);
  const lengths = new Int32Array(sequences.length);
  let total = 0;
  for (let i = 0; i < sequences.length; i++) {
    try {
      parts[i] = tokenizer.encode(sequences[i]);
    } catch (error) {
      return { chunk, refused: i, message: (error as Error).message };
    }
    lengths[i] = parts[i].length;
    total += lengths[i];
  }
  const ids = new Int32Array(total);
  for (let i = 0, at = 0; i < parts.length; at += lengths[i], i++) ids.set(parts[i], at);
  return { chunk, ids, lengths };
}
