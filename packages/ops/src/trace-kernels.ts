import * as tf from '@tensorflow/tfjs-core';

/**
 * Runs `fn` (synchronously) and lists the kernels it ran at the top level, in order: kernels that
 * other kernels run inside themselves (the tfjs ops a composite is built from) are not listed. A
 * model forward pass built only from this package's ops lists only names from `vnpKernelNames`.
 * Every kernel of the backend is wrapped for the duration of the call and restored afterwards (meant
 * for tests and checks, not for the hot path).
 */
export function traceKernels<T>(fn: () => T, backendName: string = tf.getBackend()): { result: T; calls: string[] } {
  const originals = tf.getKernelsForBackend(backendName);
  const calls: string[] = [];
  let depth = 0;
  for (const config of originals) {
    tf.unregisterKernel(config.kernelName, backendName);
    tf.registerKernel({
      ...config,
      kernelFunc: (args) => {
        if (depth === 0) calls.push(config.kernelName);
        depth++;
        try {
          return config.kernelFunc(args);
        } finally {
          depth--;
        }
      },
    });
  }
  try {
    return { result: fn(), calls };
  } finally {
    for (const config of originals) {
      tf.unregisterKernel(config.kernelName, backendName);
      tf.registerKernel(config);
    }
  }
}
