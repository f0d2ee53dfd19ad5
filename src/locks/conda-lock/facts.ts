/** What conda-lock.yml's reader and writer share (CEP 37). */

/** The `metadata` fields CEP 37 defines beyond `channels` and `platforms`, in conda-lock's order. */
export const CONDA_LOCK_METADATA_KEYS = [
  'content_hash',
  'sources',
  'time_metadata',
  'git_metadata',
  'inputs_metadata',
  'custom_metadata',
] as const;

/** CEP 37 makes (name, manager, platform, category) unique; a URL stands for name and version. */
export function condaLockEntryKey(platform: string, manager: 'conda' | 'pip', url: string): string {
  return `${platform} ${manager} ${url}`;
}
