import { calibrateQuantisation } from '@virnucpro/ops';
import type { BpeTokenizer } from './bpe-tokenizer.js';
import { dnabertCalibrationDna } from './calibration-dna.js';
import type { DnabertModel } from './dnabert-model.js';

/**
 * Runs the model once over its fixed calibration chunks (phage lambda, 150, 300 and 500 bp) where the backend asks for
 * it (@virnucpro/ops calibrateQuantisation: cuda in fp8, whose linear layers then take biases corrected for their
 * weights' rounding); elsewhere does nothing. Resolves to whether a calibration ran. Call it once after loading.
 */
export function calibrateDnabert(model: DnabertModel, tokenizer: BpeTokenizer): Promise<boolean> {
  return calibrateQuantisation(() => model.meanEmbeddings(dnabertCalibrationDna.map((s) => tokenizer.encode(s))));
}
