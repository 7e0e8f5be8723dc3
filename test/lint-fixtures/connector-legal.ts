// lint as: connectors/hubspot/src/fixture.ts
// expect: clean
import { Client } from '@hubspot/api-client';
import { EngineClient } from '@verify-hub/core';
import { mapping } from './mapping';
export const x = [Client, EngineClient, mapping];
