import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { precompress } from './precompress.ts'

// The console is served by the service itself under /console (src/http/console-assets.ts), from
// dist/console, built by `npm run build` alongside the server.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react(), precompress()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    // One bundle for the whole console keeps the first page to two requests; it stays far under
    // the 300 KB gzipped budget (bench/console.mjs measures it).
    assetsInlineLimit: 0,
    sourcemap: false,
  },
})
