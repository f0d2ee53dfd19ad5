/** The one module of zstd-codec (no types of its own) that repodata/zstd.ts loads: CommonJS. */
declare module 'zstd-codec/lib/module.js' {
  interface ZstdCodecModule {
    run(callback: (binding: unknown) => void): void;
  }
  const module: ZstdCodecModule & { default?: ZstdCodecModule };
  export = module;
}
