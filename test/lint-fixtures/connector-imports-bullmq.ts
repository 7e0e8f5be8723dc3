// lint as: connectors/mailchimp/src/fixture.ts
// expect: never imports BullMQ
import { Queue } from 'bullmq';
export const x = Queue;
