import { fileConnectorFactory } from '@verify-hub/connector-file';
import { registerConnector } from '@verify-hub/sync-jobs';
import { mailchimpConnectorFactory } from '@verify-hub/connector-mailchimp';
import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';

/**
 * Which connector serves each platform in `sync`, `worker` and `runs`: one line per platform, in one
 * place. Imported for its effect by the commands that run the pipeline.
 */
registerConnector('file', fileConnectorFactory);
registerConnector('mailchimp', mailchimpConnectorFactory);
registerConnector('hubspot', hubspotConnectorFactory);
