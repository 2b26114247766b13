// @virnucpro/consensus — VirNucPro's MLP classifier, its per-chunk consensus and the output files.
export { formatFloat32, type FormatFloat32Options } from './format-float32.js';
export { float32Bits, float32FromBits } from './float32-bits.js';
export { MlpClassifier, MLP_TENSOR_NAMES, BATCH_NORM_EPS, type MlpShapes } from './mlp-classifier.js';
export { ThreadedMlp, type ThreadedMlpOptions } from './threaded-mlp.js';
export { loadMlp } from './load-mlp.js';
export { readFeatures, FeatureFileError, type FeatureRows } from './read-features.js';
export {
  PREDICTION_HEADER,
  PREDICTION_RESULTS_FILE,
  formatPredictionRow,
  parseNumpyFloat,
  parsePredictionResults,
  predictionLabel,
  type PredictionLabel,
  type PredictionRow,
} from './prediction-row.js';
export {
  CONSENSUS_FILE,
  CONSENSUS_HEADER,
  ChunkMaxima,
  compareCodePoints,
  consensusFromRows,
  consensusKey,
  formatConsensus,
  type ChunkConsensus,
  type ConsensusFormatOptions,
  type ConsensusKeyRule,
} from './consensus.js';
export {
  SEQUENCE_SUMMARY_FILE,
  SEQUENCE_SUMMARY_HEADER,
  formatSequenceSummary,
  originalSequenceId,
  sequenceCall,
  summarizeRecord,
  type SequenceCall,
  type SequenceSummary,
} from './sequence-summary.js';
export {
  CHUNK_SCORES_FILE,
  CHUNK_SCORES_HEADER,
  chunkCall,
  formatChunkScores,
  type ChunkCall,
  type ChunkCallLabel,
  type ChunkInterval,
  type RecordCalls,
} from './chunk-calls.js';
export { RecordChunksCollector, UndeclaredFrameError } from './record-chunks.js';
export {
  DEFAULT_REGION_OPTIONS,
  VIRAL_REGIONS_BED_FILE,
  VIRAL_REGIONS_FILE,
  VIRAL_REGIONS_HEADER,
  findViralRegions,
  formatRegionsBed,
  formatRegionsTsv,
  regionOptions,
  viralBases,
  type RegionOptions,
  type ViralRegion,
} from './viral-regions.js';
export { PredictionWriter, type PredictionFiles, type PredictionWriterOptions } from './prediction-writer.js';
export { classifyFeatures, type ClassifyOptions } from './classify-features.js';
export { writeReport } from './report/write-report.js';
export { readReportData, ReportInputError, type ReportData, type ReportOptions, type ReportRecord, type ReportTrack } from './report/report-data.js';
export { REPORT_FILE, packReportData, renderReportHtml, runFacts, type ReportHtmlOptions } from './report/report-html.js';
