import { defineConfig } from 'vite';

/** The dashboard's web app: static files the dashboard service serves at `/`, hashed so they can be cached for good. */
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
