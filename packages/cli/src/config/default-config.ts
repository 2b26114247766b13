import { PREDICT_OPTIONS } from './predict-options.js';

/** The commented YAML file that `virnucpro config init` writes: every option, defaults filled in. */
export function defaultConfigYaml(): string {
  const lines = [
    '# virnucpro predict configuration.',
    '# Every key is the name of a `virnucpro predict` flag; flags given on the command line win over this file.',
    '# Relative paths are resolved against the folder of this file. Remove the leading "# " to set a value.',
    '',
  ];
  for (const spec of PREDICT_OPTIONS) {
    if (spec.cliOnly) continue;
    const choices = spec.choices ? ` (${spec.choices.join(' | ')})` : '';
    lines.push(`# ${spec.description}${choices}`);
    if (spec.default === undefined) {
      lines.push(`# ${spec.key}: ${spec.kind === 'list' ? '[0, 1]' : spec.kind === 'path' ? 'path/to/something' : ''}`.trimEnd());
    } else {
      const value = Array.isArray(spec.default) ? `[${spec.default.join(', ')}]` : String(spec.default);
      lines.push(`${spec.key}: ${value}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
