/** The VirNucPro MLP as the classification needs it: `MlpClassifier` (this thread) or `ThreadedMlp` (worker threads). */
export interface FrameClassifier {
  readonly inputDim: number;
  /** Two probabilities (others, virus) per row of `features` ([rows, inputDim]). */
  predict(features: Float32Array, rows: number): Float32Array | Promise<Float32Array>;
}
