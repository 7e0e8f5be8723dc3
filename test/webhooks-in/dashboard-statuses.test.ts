import { FINISHED_RUN_STATUSES } from '@verify-hub/core';
import { FINISHED_STATUSES } from '../../webhooks-in/dashboard/src/api-types';

// The dashboard bundles no server code, so it keeps its own list: it must be the server's, value for value.
it("the dashboard's finished run statuses are the server's", () => {
  expect([...FINISHED_STATUSES].sort()).toEqual([...FINISHED_RUN_STATUSES].sort());
});
