// @virnucpro/predict: the VirNucPro pipeline. The feature model ([DNABERT-S | ESM-2] per six-frame item, a batch
// split in halves when the GPU runs out of memory) on a worker pool, the records' frames as a paced source, the MLP
// into the prediction files, and `predict`, all of it in one call.
export { predict, assertFeaturesFit, FeatureMismatchError, type PredictOptions, type PredictResult } from './predict.js';
export { runPrediction, readAheadFor, type PredictionRun, type PredictionRunFeatures, type PredictionRunOptions, type PredictionRunWriter } from './prediction-run.js';
export { framesFrom, declareRecords, type FramesOptions, type RecordDeclarations } from './frames-from.js';
export { recordFacts, nBaseCount } from './record-facts.js';
export { writePredictions, type FeatureSink, type PredictionSink, type WritePredictionsOptions } from './write-predictions.js';
// --save-embeddings: the features of every scored frame in shards, and `classify` on them.
export { SavedEmbeddingsWriter, type SavedEmbeddingsOptions } from './saved-embeddings-writer.js';
export { openSavedEmbeddings, isSavedEmbeddings, SavedEmbeddingsError, type SavedEmbeddings, type SavedEmbeddingsBatch } from './saved-embeddings-reader.js';
export { classifySavedEmbeddings } from './classify-saved-embeddings.js';
export { SAVED_EMBEDDINGS_DIR, type SavedEmbeddingsDtype, type SavedEmbeddingsIndex, type SavedRecord } from './saved-embeddings-format.js';
export { SCORE_DIM } from './scoring-model.js';
export { DEFAULT_REFINE_MARGIN, checkRefineMargin, refinementFor, refineNearDecision, rowsNearDecision, type FrameRefinement } from './frame-refinement.js';
export { embedForRefinement } from './embed-for-refinement.js';
export { startFeatures, defaultMlpThreads, type Features, type StartFeaturesOptions } from './start-features.js';
export type { FeaturesWorkerOptions } from './features-plugin.js';
export type { FeaturesTelemetry } from './features-telemetry.js';
export type { FeatureModelPaths } from './features-model.js';
export { FEATURES_MODEL_NAME } from './feature-name.js';
export { esmTokenCount, esmTokensFor, type FrameItem } from './frame-item.js';
export { framePacking, type FramePacking } from './frame-packing.js';
export { embedSplittingOnOom, isOutOfMemory, SequenceTooLargeError, sequenceTooLarge, type OomSplitOptions } from './oom-split.js';
export { ModelLoadError, modelLoadError, modelLabel, type ModelLabel } from './model-load-error.js';
export { predictErrorOf } from './worker-error-classes.js';
// The prep stage (`virnucpro prep`, and predict's --keep-intermediate): the three intermediate FASTA files.
export { prepFasta, type PrepOptions, type PrepSummary, type PrepCounts } from './prep-fasta.js';
export { PrepWriter } from './prep-writer.js';
export { PrepInputError } from './prep-input-error.js';
export { inputStem, prepOutputPaths, type PrepOutputPaths } from './file-names.js';
export { formatWrappedFasta, formatSingleLineFasta } from './fasta-format.js';
