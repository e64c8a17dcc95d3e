import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Each file opens its own embedded database (a few hundred MB of WASM): two at a time suits 2 cores.
    maxWorkers: 2,
    testTimeout: 30_000,
    // A file's beforeAll opens its embedded database or a carrier test bed: going by the time files
    // spend outside their tests, 11-16 s in CI and up to about 20 s on a loaded machine, a third of
    // the 60 s this was.
    hookTimeout: 120_000,
  },
})
