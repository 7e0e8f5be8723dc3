// lint as: webhooks-in/src/routes/fixture.ts
// expect: clean
import express from 'express';
import { Queue } from 'bullmq';
import { FileConnector } from '@verify-hub/connector-file';
import { RunService } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
export const x = [express, Queue, FileConnector, RunService, HttpError];
