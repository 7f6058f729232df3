/** The first problem a zod parse found, as `path: message` (`request` when it is the whole value). */
import type { z } from 'zod';

export interface FirstIssue {
  path: PropertyKey[];
  message: string;
  /** `a.b.0` or `request`. */
  where: string;
}

export function firstIssue(error: z.ZodError): FirstIssue {
  const issue = error.issues[0];
  const path = issue?.path ?? [];
  return { path, message: issue?.message ?? 'invalid value', where: path.map(String).join('.') || 'request' };
}
