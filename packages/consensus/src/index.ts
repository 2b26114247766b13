// @virnucpro/consensus — VirNucPro's per-chunk consensus and the output files (its MLP: @virnucpro/mlp).
export { formatFloat32, type FormatFloat32Options } from './format-float32.js';
export {
  PREDICTION_RESULTS_FILE,
  predictionLabel,
  type PredictionLabel,
  type PredictionRow,
} from './prediction-row.js';
export {
  CONSENSUS_FILE,
  compareCodePoints,
  consensusFromRows,
  consensusKey,
  type ConsensusKeyRule,
} from './consensus.js';
export {
  SEQUENCE_SUMMARY_FILE,
  MOSTLY_N_SHARE,
  originalSequenceId,
  summarizeRecord,
  type SequenceSummary,
} from './sequence-summary.js';
export {
  CHUNK_SCORES_FILE,
  type ChunkCall,
  type ChunkCallLabel,
  type ChunkInterval,
  type RecordCalls,
  type RecordFacts,
} from './chunk-calls.js';
export { UndeclaredFrameError } from './record-chunks.js';
export {
  VIRAL_REGIONS_BED_FILE,
  VIRAL_REGIONS_FILE,
  findViralRegions,
  formatRegionsBed,
  type RegionOptions,
  type ViralRegion,
} from './viral-regions.js';
export { PredictionWriter, type PredictionFiles, type PredictionWriterOptions } from './prediction-writer.js';
export { classifyFeatures, type ClassifyOptions } from './classify-features.js';
export { writeReport, writeReportData } from './report/write-report.js';
export { ReportCollector } from './report/report-collector.js';
export { ReportInputError, type ReportData, type ReportOptions } from './report/report-data.js';
