// lint as: connectors/zapier/src/operations/fixture.ts
// expect: not by a relative path
import { MailchimpConnector } from '../../../mailchimp/src/mailchimp-connector';
export const x = MailchimpConnector;
