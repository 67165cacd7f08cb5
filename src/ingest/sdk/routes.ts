import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { HttpError } from '../../kit/errors.ts';
import { errorRef as ErrorBody } from '../../kit/errors.ts';
import { PUBLIC } from '../access.ts';

const DIST = new URL('../../../sdk/dist/', import.meta.url);
const FILES = ['v1.js', 'v1-vitals.js'] as const;

interface Asset {
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

function load(name: string): Asset | undefined {
  const file = new URL(name, DIST);
  if (!existsSync(file)) return undefined;
  const body = readFileSync(file);
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

/**
 * The browser SDK as ES modules, read once at start (`npm install` builds them). Any origin may load them
 * (module scripts need CORS) without credentials; a five-minute cache with revalidation by ETag lets fixes reach sites quickly.
 */
export function registerSdkRoutes(app: App): void {
  const assets = new Map(FILES.map((name) => [name, load(name)] as const));
  app.get(
    '/sdk/:file',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'getSdkFile',
        summary: 'The browser SDK (ES module)',
        tags: ['sdk'],
        params: Type.Object({ file: Type.String() }),
        response: {
          200: Type.Unsafe<Buffer>({ type: 'string', description: 'JavaScript (ES module)' }),
          304: Type.Null(),
          404: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const asset = assets.get(request.params.file as (typeof FILES)[number]);
      if (!asset) {
        const known = FILES.includes(request.params.file as (typeof FILES)[number]);
        throw new HttpError(
          404,
          'NOT_FOUND',
          known ? 'the SDK is not built: run `npm run build`' : `no SDK file ${request.params.file}`,
        );
      }
      reply.header('content-type', 'text/javascript; charset=utf-8');
      reply.header('cache-control', 'public, max-age=300, stale-while-revalidate=86400');
      reply.header('etag', asset.etag);
      reply.header('vary', 'Accept-Encoding');
      reply.header('access-control-allow-origin', '*');
      reply.header('cross-origin-resource-policy', 'cross-origin');
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send(null);
      if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
        reply.header('content-encoding', 'gzip');
        return reply.send(asset.gzip);
      }
      return reply.send(asset.body);
    },
  );
}
