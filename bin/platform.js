#!/usr/bin/env node
// The `platform` command for npx and npm's bin links; the code is TypeScript run by Node directly.
// Plain JavaScript that every Node.js parses, so an older one is told what to do instead of failing on a `.ts` file.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `platform: this is Node.js ${process.versions.node}, which cannot run the platform's TypeScript.\n` +
      'Run it through npm, which uses the Node.js 24 pinned in package.json: `npm start`, `npm test`, `npx platform help`\n' +
      '(after `npm install`), or put node_modules/.bin first on PATH.\n',
  );
  process.exit(1);
}
await import('../src/cli.ts');
