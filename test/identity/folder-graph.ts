import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The import graph between the folders of a service (a folder is the first path segment under its root; a file at the
 * root is a node of its own). Every relative import counts, `import type` too: a type shared both ways couples two
 * folders as much as a function does.
 */
export interface FolderGraph {
  /** folder -> the folders it imports -> the imports that make the edge (`file -> file`, relative to the root). */
  edges: Map<string, Map<string, string[]>>;
}

const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

export function folderGraph(rootDir: string): FolderGraph {
  const root = resolve(rootDir);
  const folderOf = (file: string) => relative(root, file).split(sep)[0]!;
  const edges = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(root)) {
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), match[1]!);
      if (!target.startsWith(root + sep)) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      const out = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, out);
      out.set(to, [...(out.get(to) ?? []), `${relative(root, file)} -> ${relative(root, target)}`]);
    }
  }
  return { edges };
}

/** Pairs of folders that import each other, each once, in name order. */
export function twoWayPairs(graph: FolderGraph): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [a, out] of graph.edges)
    for (const b of out.keys()) if (a < b && graph.edges.get(b)?.has(a)) pairs.push([a, b]);
  return pairs.sort((x, y) => `${x}`.localeCompare(`${y}`));
}

/** The groups of folders that reach each other through their imports (strongly connected, more than one folder). */
export function cycles(graph: FolderGraph): string[][] {
  const nodes = new Set<string>();
  for (const [a, out] of graph.edges) {
    nodes.add(a);
    for (const b of out.keys()) nodes.add(b);
  }
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const v of [...nodes].sort()) if (!index.has(v)) visit(v);
  return groups;
}

/** One import that makes each edge inside a group, for a failure message that says where to look. */
export function explain(graph: FolderGraph, group: readonly string[]): string[] {
  const inside = new Set(group);
  const lines: string[] = [];
  for (const a of group)
    for (const [b, why] of graph.edges.get(a) ?? [])
      if (inside.has(b)) lines.push(`${a} -> ${b}: ${why[0]}${why.length > 1 ? ` (+${why.length - 1} more)` : ''}`);
  return lines;
}
