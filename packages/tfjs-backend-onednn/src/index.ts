export { ONEDNN_BACKEND, setOnednnBackendOptions } from './register.js';
export { OnednnBackend, type OnednnBackendOptions } from './backend-onednn.js';
export { probeOnednn } from './onednn-library.js';
export { ONEDNN_INSTALL_HINT } from './library-discovery.js';
