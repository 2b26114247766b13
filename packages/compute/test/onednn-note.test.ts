// No oneDNN here (a path that does not exist; set before the probe runs, which caches its answer per process).
process.env.VIRNUCPRO_ONEDNN_LIB = '/nonexistent/libdnnl.so';
import { describe, expect, it } from 'vitest';
import { planCompute } from '../src/index.js';

describe('planCompute without oneDNN', () => {
  it('auto lands on a one-core CPU backend and says in one line what to install', async () => {
    const plan = await planCompute({ backend: 'auto' });
    if (plan.settings.backend !== 'wasm' && plan.settings.backend !== 'cpu') return; // a GPU machine: nothing to say
    expect(plan.notes).toHaveLength(1);
    expect(plan.notes[0]).toContain(`'${plan.settings.backend}'`);
    expect(plan.notes[0]).toMatch(/apt-get install libdnnl2.*conda install -c conda-forge onednn.*module load onednn/);
    expect(plan.notes[0]).not.toContain('\n');
  });

  it('a backend named by the user gets no note', async () => {
    expect((await planCompute({ backend: 'wasm' })).notes).toEqual([]);
  });
});
