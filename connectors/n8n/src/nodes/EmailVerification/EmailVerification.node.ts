import { NodeConnectionTypes, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { executeVerify } from './execute-verify';
import { CREDENTIAL_TYPE } from './n8n-fetch';
import { outputsFor } from './outputs';
import { verifyProperties } from './properties';

/** The "Email Verification" node. (File and class names follow n8n's loader, which finds the class by the file's base name.) */
export class EmailVerification implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Email Verification',
    name: 'emailVerification',
    icon: { light: 'file:verifyHub.svg', dark: 'file:verifyHub.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["routeByRisk"] ? "verify, route by risk" : "verify"}}',
    description:
      'Verify email addresses with verify-hub: for each item, checks whether the address can receive mail and returns ' +
      'its risk (safe, risky, invalid or unknown), a 0-100 score, a reason code (for example mailbox_not_found, disposable, ' +
      'catch_all), an explanation sentence and the individual checks (true, false, or null when not checked; smtpCheck ' +
      'is the SMTP outcome, not_checked when no SMTP conversation took place). Safe: send. Risky: may bounce or go unread. ' +
      'Invalid: do not send. Unknown: no verdict yet, try later (not billed).',
    defaults: { name: 'Email Verification' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    // One output, or four named ones with "Route by Risk": an expression over the parameters, as in the Switch node.
    outputs: `={{(${outputsFor.toString()})($parameter)}}`,
    credentials: [{ name: CREDENTIAL_TYPE, required: true }],
    properties: verifyProperties,
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return executeVerify(this);
  }
}
