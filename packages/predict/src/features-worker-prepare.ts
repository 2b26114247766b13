// The features worker's `prepare` (@virnucpro/runtime's WorkerPluginSpec.prepare), beside features-worker.ts so that
// a worker finds it by path as it finds that one: the backend's slow start (cuda: the driver and the GPU's context)
// begun while the worker still loads the models' code.
export { prepareWorkerCompute } from '@virnucpro/compute/worker-prepare';
