export { main } from './main.js';
export { ExitCode } from './exit-codes.js';
