/** Hostile lock files for the tests of issue 32, item 4. */

/** A pixi.lock whose records all share one long `depends` list by alias. */
export function aliasLock(records: number, depends: number): string {
  const lines = [
    'version: 6',
    'environments:',
    '  default:',
    '    channels:',
    '    - url: https://conda.anaconda.org/conda-forge/',
    '    packages:',
    '      linux-64:',
  ];
  for (let i = 0; i < records; i++) lines.push(`      - conda: https://conda.anaconda.org/conda-forge/linux-64/p${i}-1.0-h0_0.conda`);
  lines.push('packages:');
  for (let i = 0; i < records; i++) {
    lines.push(`- conda: https://conda.anaconda.org/conda-forge/linux-64/p${i}-1.0-h0_0.conda`);
    if (i === 0) {
      lines.push('  depends: &D');
      for (let d = 0; d < depends; d++) lines.push(`  - dependency-number-${d} >=1.0`);
    } else lines.push('  depends: *D');
  }
  return `${lines.join('\n')}\n`;
}
