import { HttpError } from '../../kit/errors.ts';
import { DataSourceError } from './driver.ts';
import { ParameterError } from './parameters.ts';
import { StatementError } from './statement.ts';

/** The answer for a failure of the data source itself; the messages are already free of the URL and its password. */
export function httpErrorOf(err: unknown): unknown {
  if (err instanceof StatementError || err instanceof ParameterError)
    return new HttpError(400, 'VALIDATION_ERROR', err.message);
  if (!(err instanceof DataSourceError)) return err;
  switch (err.kind) {
    case 'query':
      return new HttpError(400, 'VALIDATION_ERROR', `the database refused the query: ${err.message}`);
    case 'timeout':
    case 'cancelled':
      return new HttpError(
        408,
        'REQUEST_TIMEOUT',
        /data source's timeout|client went away/.test(err.message)
          ? err.message
          : `the query ran longer than the data source's timeout and was cancelled (${err.message})`,
      );
    case 'network':
      return new HttpError(400, 'VALIDATION_ERROR', err.message);
    case 'connect':
      return new HttpError(
        503,
        'UNAVAILABLE',
        `could not reach the data source: ${err.message.replace(/^could not connect: /, '')}`,
      );
  }
}
