import type { INodeProperties } from 'n8n-workflow';

export const DEFAULT_CONCURRENCY = 5;
export const MAX_CONCURRENCY = 20;
export const DEFAULT_MAX_RATE_LIMIT_WAIT_S = 60;

/** The parameters of the Verify operation. */
export const verifyProperties: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    options: [
      {
        name: 'Verify',
        value: 'verify',
        action: 'Verify an email address',
        description: 'Check whether an address can receive mail, and how risky it is to send to it',
      },
    ],
    default: 'verify',
  },
  {
    displayName: 'Email',
    name: 'email',
    type: 'string',
    default: '={{ $json.email }}',
    required: true,
    placeholder: 'jane.doe@example.com',
    description: 'The address to verify; usually an expression that reads it from the input item',
  },
  {
    displayName: 'Route by Risk',
    name: 'routeByRisk',
    type: 'boolean',
    default: false,
    description: 'Whether to send each item to one of four outputs by its risk: Safe, Risky, Invalid, Unknown (skipped and failed items go to Unknown)',
  },
  {
    displayName: 'Output',
    name: 'outputMode',
    type: 'options',
    options: [
      { name: 'Merge Into Item', value: 'merge', description: "Add the result's fields to the item's (or under the field set in Options)" },
      { name: 'Replace Item', value: 'replace', description: 'Output only the verification result' },
    ],
    default: 'merge',
  },
  {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    options: [
      {
        displayName: 'Concurrency',
        name: 'concurrency',
        type: 'number',
        typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
        default: DEFAULT_CONCURRENCY,
        description: `How many addresses to verify at the same time (1 to ${MAX_CONCURRENCY})`,
      },
      {
        displayName: 'Max Rate-Limit Wait (Seconds)',
        name: 'maxRateLimitWait',
        type: 'number',
        typeOptions: { minValue: 0, maxValue: 3600 },
        default: DEFAULT_MAX_RATE_LIMIT_WAIT_S,
        description: "When the engine's rate limit is hit, the node waits for the reset and retries; this caps the total waiting per execution",
      },
      {
        displayName: 'Put Result in Field',
        name: 'resultField',
        type: 'string',
        default: '',
        placeholder: 'verification',
        description: "With Merge Into Item: put the result under this field instead of next to the item's own fields",
      },
      {
        displayName: 'Skip Items Without Email',
        name: 'skipWithoutEmail',
        type: 'boolean',
        default: true,
        description: 'Whether to pass items with an empty email through unchanged instead of failing on them',
      },
    ],
  },
];
