import zapier from 'zapier-platform-core';
import App from 'verify-hub-zapier';

export const KEY = 'vh_zapiertestkey0123456789abcdef';

export const appTester = zapier.createAppTester(App);

/** A Zapier ThrottledError carries `{message, delay}` as JSON in its message. */
export function throttled(error: unknown): { name: string; message: string; delay: number } {
  const e = error as Error;
  const body = JSON.parse(e.message) as { message: string; delay: number };
  return { name: e.name, ...body };
}

/** A Zapier AppError (`z.errors.Error`) carries `{message, code, status}` as JSON in its message. */
export function appError(error: unknown): { name: string; message: string; code?: string; status?: number } {
  const e = error as Error;
  const body = JSON.parse(e.message) as { message: string; code?: string; status?: number };
  return { name: e.name, ...body };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the operation to fail, it succeeded');
}
