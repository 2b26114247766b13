#!/usr/bin/env node
// Every link between the repository's Markdown files points at a file that exists and, with #anchor, at a heading
// of that file (anchors as GitHub makes them: lower case, punctuation dropped — an en dash too —, spaces to
// hyphens, -1/-2 for repeats). Long headings with dates and times are easy to mistype by hand.
// Usage: node tools/lint/check-doc-links.mjs   (from the repo root; exit 1 and one line per broken link)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const files = execFileSync('git', ['ls-files', '*.md'], { encoding: 'utf8' }).split('\n').filter((f) => f && existsSync(f));

/** GitHub's anchor of a heading's text (github-slugger's rule, with inline code and emphasis marks removed). */
function headingAnchor(text) {
  return text.toLowerCase().replace(/<[^>]+>/g, '').replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

function anchorsOf(markdown) {
  const anchors = new Set();
  const repeats = new Map();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = headingAnchor(heading[1]);
    const n = repeats.get(base) ?? 0;
    repeats.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const anchorsByFile = new Map(files.map((f) => [resolve(f), anchorsOf(readFileSync(f, 'utf8'))]));
const broken = [];
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n');
  let inFence = false;
  lines.forEach((line, i) => {
    if (/^\s*```/.test(line)) inFence = !inFence;
    if (inFence) return;
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
      const [path, anchor] = target.split('#', 2);
      const to = path ? resolve(dirname(file), decodeURIComponent(path)) : resolve(file);
      if (!existsSync(to)) broken.push(`${file}:${i + 1}: ${target}: no such file ${relative('.', to)}`);
      else if (anchor !== undefined && anchorsByFile.has(to) && !anchorsByFile.get(to).has(anchor)) {
        broken.push(`${file}:${i + 1}: ${target}: no heading with that anchor in ${relative('.', to)}`);
      }
    }
  });
}
for (const line of broken) console.error(line);
if (broken.length > 0) {
  console.error(`${broken.length} broken link(s) between the Markdown files`);
  process.exit(1);
}
