// lint as: connectors/mcp/src/fixture.ts
// expect: never imports Express
import express from 'express';
export const x = express;
