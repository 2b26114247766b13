export { AtomicFile } from './atomic-file.js';
export { BufferedAtomicFile } from './buffered-atomic-file.js';
export { commitAll, type StagedOutput } from './staged-output.js';
export { writeFileAtomic, writeFileAtomicSync } from './write-file-atomic.js';
export { tempPathFor, parseTempName } from './temp-name.js';
export { removeStaleTempFiles } from './stale-temp-files.js';
export { FileWriteError, namingFile } from './file-write-error.js';
export { syncDirectory, syncDirectorySync } from './sync-directory.js';
export { FULL_DISK_ENV } from './injected-faults.js';
