import { errorResponses } from '../../kit/errors.ts';

/** The errors the report routes may answer: 409 while the job has no completed result. */
export const reportErrors = errorResponses(400, 401, 403, 404, 409, 503);
