// lint as: webhooks-in/dashboard/src/fixture.tsx
// expect: clean
import type { RunView } from '../../src/api-types';
import type { Verification } from '@verify-hub/core';
import { h } from 'preact';
import { api } from './api';
export const x = [h, api];
export type Y = [RunView, Verification];
