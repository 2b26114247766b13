// One line of prediction_results.txt, exactly as the original prints it:
//   f"{seqid}\t{prediction}\t{str(np.float32 score1)}\t{str(np.float32 score2)}\n"
// prediction = argmax of the two float32 probabilities, a tie going to index 0 ('others').

import { formatFloat32 } from './format-float32.js';

export const PREDICTION_RESULTS_FILE = 'prediction_results.txt';
export const PREDICTION_HEADER = 'Sequence_ID\tPrediction\tscore1\tscore2\n';

export type PredictionLabel = 'virus' | 'others';

/** 'virus' iff score2 > score1 as float32 values (torch.max picks the first of equal maxima). */
export function predictionLabel(score1: number, score2: number): PredictionLabel {
  return Math.fround(score2) > Math.fround(score1) ? 'virus' : 'others';
}

export function formatPredictionRow(id: string, score1: number, score2: number): string {
  return `${id}\t${predictionLabel(score1, score2)}\t${formatFloat32(score1)}\t${formatFloat32(score2)}\n`;
}

export interface PredictionRow {
  id: string;
  prediction: PredictionLabel;
  score1: number;
  score2: number;
}

/**
 * Parses a prediction_results.txt (ours or the original tool's). Scores are read as float32, the type the
 * original printed. Throws naming the line on anything malformed.
 */
export function parsePredictionResults(text: string, source = 'prediction_results.txt'): PredictionRow[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== PREDICTION_HEADER.trimEnd()) {
    throw new Error(`${source}:1: expected the header "${PREDICTION_HEADER.trimEnd().replace(/\t/g, '\\t')}"`);
  }
  const rows: PredictionRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    const fields = lines[i].split('\t');
    const score1 = parseNumpyFloat(fields[2]);
    const score2 = parseNumpyFloat(fields[3]);
    if (fields.length !== 4 || (fields[1] !== 'virus' && fields[1] !== 'others') || fields[2] === '' || fields[3] === '') {
      throw new Error(`${source}:${i + 1}: expected "id<TAB>virus|others<TAB>score1<TAB>score2"`);
    }
    if (score1 === undefined) throw new Error(`${source}:${i + 1}: score1 "${fields[2]}" is not a number`);
    if (score2 === undefined) throw new Error(`${source}:${i + 1}: score2 "${fields[3]}" is not a number`);
    rows.push({ id: fields[0], prediction: fields[1], score1: Math.fround(score1), score2: Math.fround(score2) });
  }
  return rows;
}

const SPECIAL: Record<string, number> = { nan: NaN, inf: Infinity, '-inf': -Infinity };

/** A number as numpy prints it ('nan', 'inf' included); undefined when it is not one. */
export function parseNumpyFloat(text: string): number | undefined {
  if (text in SPECIAL) return SPECIAL[text];
  const v = Number(text);
  return text.trim() === '' || Number.isNaN(v) ? undefined : v;
}
