import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../kit/errors.ts';

const MAX_NESTING = 64;

/**
 * A preHandler for admin routes: PostgreSQL's text and jsonb cannot hold a NUL character, and a deeply nested value
 * overflows JSON.stringify before it reaches the database. Either would fail the query (a 500); this answers 400
 * naming the field instead. Walks without recursion, so the walk itself cannot overflow.
 */
export async function refuseUnstorableInput(request: FastifyRequest): Promise<void> {
  const problem = findProblem({ params: request.params, query: request.query, body: request.body });
  if (problem) throw new HttpError(400, 'VALIDATION_ERROR', problem);
}

function findProblem(root: Record<string, unknown>): string | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [];
  for (const value of Object.values(root)) {
    if (typeof value === 'object' && value !== null) {
      for (const [key, v] of Object.entries(value)) stack.push({ value: v, path: key, depth: 1 });
    }
  }
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return `${path}: must not contain a NUL character`;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_NESTING) return `${path}: must not be nested more than ${MAX_NESTING} levels deep`;
    for (const [key, v] of Object.entries(value)) {
      if (key.includes('\u0000')) return `${path}: must not contain a NUL character in a key`;
      stack.push({ value: v, path: `${path}.${key}`, depth: depth + 1 });
    }
  }
  return undefined;
}
