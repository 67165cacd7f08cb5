/**
 * Dashboard benchmarks, one phase after another (BENCH_PHASES, comma-separated; all by default):
 *   query   POST /api/v1/datasources/:id/query, 10,000 rows x 10 columns, against bare pg + JSON.stringify
 *
 *   npm run bench:dashboard
 */
import { queryBenchmark } from './dashboard-query.ts';

const PHASES = new Set((process.env.BENCH_PHASES ?? 'query').split(','));

if (PHASES.has('query')) await queryBenchmark();
