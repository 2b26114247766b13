#!/usr/bin/env node
// A/B of `virnucpro embed` between two checkouts (each built), side by side in one run: for every model, token
// budget and repeat, A and B run back to back (order alternating per repeat, so a busy shared machine slows both
// alike); prints the median embedding seconds (the run summary's wall time) and, where /usr/bin/time exists, the
// median CPU seconds of the whole process (steadier than wall time on a shared machine: wasm runs on one thread),
// B/A of each, and whether each side's embeddings are byte-identical across the token budgets (batch invariance:
// other budgets = other batches).
//   node tools/bench/invariance/embed-ab.mjs --a /path/to/main --b . --models-dir test-data/demo-models \
//     --nucleotides X_identified_nucleotide.fa --proteins X_identified_protein.faa [--backend wasm] [--repeats 5] [--budgets 512,2048,8192]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' }, b: { type: 'string' }, 'models-dir': { type: 'string' },
    nucleotides: { type: 'string' }, proteins: { type: 'string' },
    backend: { type: 'string', default: 'wasm' }, repeats: { type: 'string', default: '5' }, budgets: { type: 'string', default: '512,2048,8192' },
  },
});
for (const key of ['a', 'b', 'models-dir', 'nucleotides', 'proteins']) if (!args[key]) throw new Error(`--${key} is required`);
const models = JSON.parse(readFileSync(join(args['models-dir'], 'models.json'), 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'embed-ab-'));
const sides = { A: resolve(args.a), B: resolve(args.b) };
const runs = [
  { model: 'esm2', path: join(args['models-dir'], models.esm), input: args.proteins },
  { model: 'dnabert', path: join(args['models-dir'], models.dnabert), input: args.nucleotides },
];
const budgets = args.budgets.split(',').map(Number);
const seconds = {};
const cpuSeconds = {};
const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const outputs = {};
for (let rep = 0; rep < Number(args.repeats); rep++) {
  for (const { model, path, input } of runs) {
    for (const budget of budgets) {
      for (const side of rep % 2 ? ['B', 'A'] : ['A', 'B']) {
        const output = join(tmp, `${side}-${model}-${budget}.safetensors`);
        rmSync(output, { force: true }); // embed refuses to overwrite (and older checkouts know no --force)
        const summary = join(tmp, 'summary.json');
        const cpuFile = join(tmp, 'cpu.txt');
        const command = [process.execPath, join(sides[side], 'packages/cli/bin/virnucpro.js'), 'embed', model, '--model', path, '--input', input,
          '--output', output, '--backend', args.backend, '--token-budget', String(budget), '--summary', summary, '--quiet'];
        const r = timeBin ? spawnSync(timeBin, ['-f', '%U %S', '-o', cpuFile, ...command], { encoding: 'utf8' }) : spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`${side} embed ${model}: ${r.stderr}`);
        (seconds[`${model} ${budget} ${side}`] ??= []).push(JSON.parse(readFileSync(summary, 'utf8')).seconds);
        if (timeBin) (cpuSeconds[`${model} ${budget} ${side}`] ??= []).push(readFileSync(cpuFile, 'utf8').trim().split(/\s+/).map(Number).reduce((x, y) => x + y, 0));
        outputs[`${side} ${model} ${budget}`] = readFileSync(output);
      }
    }
  }
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const rows = [];
for (const { model } of runs) {
  for (const budget of budgets) {
    const a = median(seconds[`${model} ${budget} A`]);
    const b = median(seconds[`${model} ${budget} B`]);
    const row = { model, budget, aSeconds: +a.toFixed(3), bSeconds: +b.toFixed(3), bOverA: +(b / a).toFixed(3) };
    if (timeBin) {
      const [ca, cb] = ['A', 'B'].map((side) => median(cpuSeconds[`${model} ${budget} ${side}`]));
      Object.assign(row, { aCpuSeconds: +ca.toFixed(2), bCpuSeconds: +cb.toFixed(2), bOverACpu: +(cb / ca).toFixed(3) });
    }
    rows.push(row);
  }
}
// The embeddings (not the metadata, which holds the budget) of one side, identical across budgets?
const vectors = (buf) => buf.subarray(8 + Number(buf.readBigUInt64LE(0)));
const invariant = {};
for (const side of ['A', 'B']) {
  for (const { model } of runs) {
    const first = vectors(outputs[`${side} ${model} ${budgets[0]}`]);
    invariant[`${side} ${model}`] = budgets.every((budget) => vectors(outputs[`${side} ${model} ${budget}`]).equals(first));
  }
}
console.log(JSON.stringify({ backend: args.backend, repeats: Number(args.repeats), a: sides.A, b: sides.B, rows, identicalAcrossBudgets: invariant }, null, 2));
rmSync(tmp, { recursive: true, force: true });
