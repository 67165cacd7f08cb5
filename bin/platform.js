#!/usr/bin/env node
// The `platform` command for npx and npm's bin links; the code is TypeScript run by Node directly.
import '../src/cli.ts';
