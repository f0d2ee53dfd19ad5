/**
 * The package records behind `../shared/spec/reference` (fixtures/exporters/reference-records.json)
 * and the environments the reference files were made from.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportContext, ExportEnvironment } from '../../src/exporters/types.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

interface Fixture {
  records: Record<string, PackageRecord>;
  environments: Record<string, string[]>;
}

const fixture = JSON.parse(readFileSync(join(PROJECT_ROOT, 'fixtures/exporters/reference-records.json'), 'utf8')) as Fixture;

export function records(environment: string): PackageRecord[] {
  return fixture.environments[environment].map((key) => fixture.records[key]);
}

/** What a resolve hands exporters (conda-presto's shape): no name, no prefix, no requested specs. */
export function solvedEnvironments(channels: readonly string[]): ExportEnvironment[] {
  return [
    { platform: 'linux-64', records: records('linux-64'), channels },
    { platform: 'osx-arm64', records: records('osx-arm64'), channels },
  ];
}

/** The `demo` prefix of formats.md 1.6: an installed environment as `conda export -n demo` sees it. */
export function demoEnvironment(): ExportEnvironment {
  return {
    platform: 'linux-64',
    records: records('demo-scandir-order'),
    channels: ['conda-forge'],
    requestedSpecs: [
      'conda-forge::bzip2=1.0.8=hda65f42_9',
      'conda-forge::ca-certificates=2026.4.22=hbd8a1cb_0',
      'conda-forge::tzdata=2025c=hc9c84f9_1',
    ],
    name: 'demo',
    prefix: '/home/user/envs/demo',
    variables: { MY_VAR: 'hello' },
    environmentChannels: ['conda-forge'],
  };
}

export const CONTEXT: ExportContext = {
  toolName: 'conda-resolve',
  toolVersion: '1.2.3',
  // The reference files were made with created_at frozen to this time.
  now: new Date('2026-08-20T10:00:00.750Z'),
};

/** A reference file's text with conda's and conda-lockfiles' tool names replaced by ours. */
export function withOurToolName(text: string): string {
  return text
    .replace(/^# created-by: conda 26\.7\.1$/gm, `# created-by: ${CONTEXT.toolName} ${CONTEXT.toolVersion}`)
    .replace(/^(\s*)created_by: conda-lockfiles 0\.2\.1$/gm, `$1created_by: ${CONTEXT.toolName} ${CONTEXT.toolVersion}`);
}
