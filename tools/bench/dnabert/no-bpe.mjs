// A stand-in for BpeTokenizer in embed-host.ts (`--bpe tools/bench/dnabert/no-bpe.mjs`): no BPE, ids (zeros) of about
// the real tokenizer's count for a genome window (34 / 66 / 108 at 150 / 300 / 500 bp), so that the host bench shows what
// the command's main thread would sustain with its tokenizing done elsewhere (e.g. on other threads).
export class BpeTokenizer {
  static async fromFile() {
    return new BpeTokenizer();
  }

  encode(sequence) {
    return new Int32Array(this.tokenCount(sequence));
  }

  tokenCount(sequence) {
    return Math.round(sequence.length * 0.2122) + 2;
  }
}
