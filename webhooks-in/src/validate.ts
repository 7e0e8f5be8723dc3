import type { z } from 'zod';
import { HttpError } from './http-errors';

/**
 * Parses one part of a request with zod; bad input becomes a 400 naming the first offending field
 * (`body.scope`, `query.limit`, `params.id`). zod's messages describe the rule, never echo the value.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params' | 'form'): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = [where, ...issue.path.map(String)].join('.');
  throw new HttpError(400, 'INVALID_INPUT', `${field}: ${issue.message}`, field);
}
