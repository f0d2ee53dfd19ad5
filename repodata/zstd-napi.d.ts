/**
 * The module of zstd-napi (an optional dependency) that repodata/zstd.ts loads, declared here so
 * the project builds and type-checks without it; repodata/zstd.ts checks its shape when it loads.
 */
declare module 'zstd-napi/binding.js' {
  const binding: unknown;
  export default binding;
}
