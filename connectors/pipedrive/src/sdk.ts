import type * as V1 from 'pipedrive/v1';
import type * as V2 from 'pipedrive/v2';

/**
 * The official SDK, loaded with the first connection rather than with the module: its v1 and v2
 * entries load every API and model (about 0.2 s), which every `verify-hub` command that lists the
 * platform modules would otherwise pay.
 */
export const pipedriveV2 = (): typeof V2 => require('pipedrive/v2') as typeof V2;
export const pipedriveV1 = (): typeof V1 => require('pipedrive/v1') as typeof V1;
