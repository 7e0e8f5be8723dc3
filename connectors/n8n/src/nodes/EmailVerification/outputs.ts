import type { INodeParameters } from 'n8n-workflow';

/** Output order when routing by risk; an item's risk picks its output. */
export const RISK_OUTPUTS = ['safe', 'risky', 'invalid', 'unknown'] as const;

/**
 * The node's outputs, evaluated by n8n as an expression over the parameters (as the Switch node does):
 * one output normally, four named ones with "Route by Risk". It is turned into source text, so it may
 * use nothing from outside its own body.
 */
export const outputsFor = (parameters: INodeParameters) =>
  parameters.routeByRisk === true
    ? [
        { type: 'main', displayName: 'Safe' },
        { type: 'main', displayName: 'Risky' },
        { type: 'main', displayName: 'Invalid' },
        { type: 'main', displayName: 'Unknown' },
      ]
    : [{ type: 'main' }];
