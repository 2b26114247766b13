import { MlpClassifier } from '@virnucpro/mlp';

/** A state dict's tensor, as MlpClassifier.fromStateDict takes it. */
type TensorData = Parameters<typeof MlpClassifier.fromStateDict>[0] extends Map<string, infer T> ? T : never;

/** VirNucPro's MLP layout with small weights from `seed`: `input` → 4 hidden → 2 (tests of the scoring paths). */
export function seededMlp(input: number, seed: number): MlpClassifier {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
  const tensor = (shape: number[], fill = random): TensorData => ({ dtype: 'float32', shape, data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, fill) });
  return MlpClassifier.fromStateDict(
    new Map([
      ['hidden_layer.weight', tensor([4, input])], ['hidden_layer.bias', tensor([4])],
      ['bn1.weight', tensor([4], () => 1)], ['bn1.bias', tensor([4])], ['bn1.running_mean', tensor([4])], ['bn1.running_var', tensor([4], () => 1)],
      ['output_layer.weight', tensor([2, 4])], ['output_layer.bias', tensor([2])],
    ]),
  );
}
