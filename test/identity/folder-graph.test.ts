import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cycles, explain, folderGraph, twoWayPairs } from './folder-graph.ts';

/**
 * src/identity's folders import each other in one direction only (docs/identity.md, "Code layout"): base folders (web,
 * api, principals, sessions, access) below the OAuth engine (oidc), the features above it, the assembly on top. A
 * folder cycle means a change in one folder can break any other of the cycle; this keeps it from coming back.
 */
const ROOT = new URL('../../src/identity/', import.meta.url).pathname;

test("identity's folders form no import cycle", () => {
  const graph = folderGraph(ROOT);
  const found = cycles(graph);
  assert.deepEqual(
    found.map((group) => ({ folders: group, imports: explain(graph, group) })),
    [],
    'folders that reach each other through their imports',
  );
});

test('no two folders of identity import each other', () => {
  assert.deepEqual(twoWayPairs(folderGraph(ROOT)), []);
});

test('the graph sees a cycle and a two-way pair where there is one', () => {
  const graph = {
    edges: new Map([
      ['a', new Map([['b', ['a/x.ts -> b/y.ts']]])],
      ['b', new Map([['c', ['b/y.ts -> c/z.ts']]])],
      ['c', new Map([['a', ['c/z.ts -> a/x.ts']]])],
      ['d', new Map([['e', ['d/p.ts -> e/q.ts']]])],
      ['e', new Map([['d', ['e/q.ts -> d/p.ts']]])],
    ]),
  };
  assert.deepEqual(cycles(graph), [
    ['a', 'b', 'c'],
    ['d', 'e'],
  ]);
  assert.deepEqual(twoWayPairs(graph), [['d', 'e']]);
  assert.deepEqual(explain(graph, ['a', 'b', 'c']), [
    'a -> b: a/x.ts -> b/y.ts',
    'b -> c: b/y.ts -> c/z.ts',
    'c -> a: c/z.ts -> a/x.ts',
  ]);
});
