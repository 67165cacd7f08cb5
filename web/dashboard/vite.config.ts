import { defineConfig, type UserConfig } from 'vite';

/**
 * Libraries in chunks of their own. Those only some screens need load with the first screen that uses them: ECharts
 * (and zrender, the canvas engine under it) with the first chart, CodeMirror with the SQL editor. ECharts and zrender
 * are apart because together they pass the 500 kB a chunk may weigh (web/dashboard/build.ts checks it).
 */
const LIBRARY_CHUNKS = [
  // Captured first: the echarts group would otherwise take zrender along as one of its dependencies.
  { name: 'zrender', test: /[\\/]node_modules[\\/]zrender[\\/]/, priority: 2 },
  { name: 'echarts', test: /[\\/]node_modules[\\/]echarts[\\/]/, priority: 1 },
  // TanStack Query, the data layer every screen uses: one chunk named after it, loaded with the first screen.
  { name: 'react-query', test: /[\\/]node_modules[\\/]@tanstack[\\/]/ },
  {
    name: 'codemirror',
    test: /[\\/]node_modules[\\/](@codemirror|@lezer|codemirror|style-mod|crelt|w3c-keyname)[\\/]/,
  },
];

/**
 * TanStack Query's modules start with `"use client"`, a marker for React Server Components frameworks; this app is
 * all client, so the bundler dropping the marker changes nothing. Only that notice is left out; every other warning
 * (a directive of any other kind included) is printed as before.
 */
const onLog: NonNullable<NonNullable<UserConfig['build']>['rolldownOptions']>['onLog'] = (level, log, handler) => {
  if (log.code === 'MODULE_LEVEL_DIRECTIVE' && /"use client"/.test(log.message)) return;
  handler(level, log);
};

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
    rolldownOptions: { onLog, output: { codeSplitting: { groups: LIBRARY_CHUNKS } } },
  },
});
