/** An item of a chunk its tokenizer refuses (ChunkEncoder): `index` within the chunk, the tokenizer's own message. */
export class ChunkRefusal extends Error {
  override name = 'ChunkRefusal';
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}
