import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { registeredRoutes } from '../../src/kit/app.ts';
import { services } from '../../src/services.ts';
import { freshPostgres } from '../support/postgres.ts';
import { tempDir } from '../support/tmp.ts';

// Every service of the registry, so a service added to src/services.ts is checked without a new test.
const OPENAPI_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

interface Operation {
  operationId?: string;
  responses?: Record<string, unknown>;
}
type Document = {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
};

for (const service of services) {
  test(`${service.name}: /openapi.json is a valid OpenAPI 3.1 document describing every route, each with an operationId`, async () => {
    const database = await freshPostgres(`openapi_${service.name}`);
    const dir = tempDir();
    const app = await service
      .load({
        DATABASE_URL: database.url,
        DATA_DIR: dir.path,
        LOG_LEVEL: 'silent',
        PLATFORM_SECRET_KEY: randomBytes(32).toString('hex'),
      })
      .buildApp();
    try {
      await app.ready();
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      assert.equal(res.statusCode, 200);
      const doc = res.json() as Document;

      const validator = new Validator();
      const result = await validator.validate(structuredClone(doc));
      assert.ok(
        result.valid,
        `not a valid OpenAPI document: ${JSON.stringify(result.errors, null, 2)?.slice(0, 3000)}`,
      );
      assert.equal(validator.version, '3.1');
      assert.ok(doc.servers?.length, 'servers are declared');
      assert.ok(doc.components?.schemas?.Error, 'the shared error body is a component');

      const ids = new Map<string, string>();
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if (!OPENAPI_METHODS.has(method)) continue;
          const where = `${method.toUpperCase()} ${path}`;
          assert.match(op.operationId ?? '', /^[a-z][A-Za-z0-9]+$/, `${where} has a camelCase operationId`);
          assert.ok(
            !ids.has(op.operationId!),
            `${where} and ${ids.get(op.operationId!)} share the operationId ${op.operationId}`,
          );
          ids.set(op.operationId!, where);
          assert.ok(Object.keys(op.responses ?? {}).length > 0, `${where} documents its responses`);
        }
      }

      const documented = (method: string, url: string) =>
        Boolean(doc.paths[url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[method.toLowerCase()]);
      const routes = registeredRoutes(app);
      assert.ok(routes.length > 0);
      for (const route of routes) {
        if (!OPENAPI_METHODS.has(route.method.toLowerCase())) continue;
        if (route.url.endsWith('*')) {
          // A catch-all mounted for another handler (identity's OAuth provider) is described path by path.
          const prefix = route.url.slice(0, -1);
          assert.ok(
            Object.keys(doc.paths).some((p) => p.startsWith(prefix)),
            `the paths under ${route.url} are described`,
          );
          continue;
        }
        // HEAD answers like GET wherever Fastify adds it; OpenAPI needs it only where it differs.
        if (route.method === 'HEAD' && documented('GET', route.url)) continue;
        assert.ok(documented(route.method, route.url), `${route.method} ${route.url} is in /openapi.json`);
      }
    } finally {
      await app.close();
      await database.drop();
      dir.remove();
    }
  });
}
