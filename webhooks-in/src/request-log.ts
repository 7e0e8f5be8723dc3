import type { RequestHandler } from 'express';
import type { Logger } from '@verify-hub/core';

/**
 * One log line per request: method, route pattern, status, duration. Never the URL or headers: the
 * Mailchimp receiver's secret is a path segment and the admin token is a header.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : req.baseUrl || 'unmatched';
      const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
      logger[level]({ method: req.method, route, status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
    });
    next();
  };
}
