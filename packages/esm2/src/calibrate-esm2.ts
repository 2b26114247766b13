import { calibrateQuantisation } from '@virnucpro/ops';
import { esm2CalibrationProteins } from './calibration-proteins.js';
import type { Esm2Model } from './esm2-model.js';
import { tokenizeProtein } from './tokenizer.js';

/**
 * Runs the model once over its fixed calibration proteins (phage lambda frames) where the backend asks for it
 * (@virnucpro/ops calibrateQuantisation: cuda in fp8, whose linear layers then take biases corrected for their
 * weights' rounding); elsewhere does nothing. Resolves to whether a calibration ran. Call it once after loading.
 */
export function calibrateEsm2(model: Esm2Model): Promise<boolean> {
  return calibrateQuantisation(() => model.meanEmbeddings(esm2CalibrationProteins.map((p) => tokenizeProtein(p))));
}
