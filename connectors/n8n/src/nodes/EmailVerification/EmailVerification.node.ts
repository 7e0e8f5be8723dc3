import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { emailVerificationDescription } from './description';
import { executeVerify } from './execute-verify';

/** The "Email Verification" node. (File and class names follow n8n's loader, which finds the class by the file's base name.) */
export class EmailVerification implements INodeType {
  description: INodeTypeDescription = emailVerificationDescription;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return executeVerify(this);
  }
}
