// The RxJS entry point (`@virnucpro/fasta-stream/rxjs`), separate so that programs that only read or write
// FASTA do not load RxJS (about 50 ms of start-up).
export { fasta$ } from './fasta-observable.js';
