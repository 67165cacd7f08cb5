import { defineConfig } from 'vite';

/**
 * The libraries only some screens need, each in chunks of its own so they load with the first screen that uses them:
 * ECharts (and zrender, the canvas engine under it) with the first chart, CodeMirror with the SQL editor. ECharts and
 * zrender are apart because together they pass the 500 kB a chunk may weigh (web/dashboard/build.ts checks it).
 */
const LIBRARY_CHUNKS = [
  // Captured first: the echarts group would otherwise take zrender along as one of its dependencies.
  { name: 'zrender', test: /[\\/]node_modules[\\/]zrender[\\/]/, priority: 2 },
  { name: 'echarts', test: /[\\/]node_modules[\\/]echarts[\\/]/, priority: 1 },
  {
    name: 'codemirror',
    test: /[\\/]node_modules[\\/](@codemirror|@lezer|codemirror|style-mod|crelt|w3c-keyname)[\\/]/,
  },
];

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
    rolldownOptions: { output: { codeSplitting: { groups: LIBRARY_CHUNKS } } },
  },
});
