import { version as platformVersion } from 'zapier-platform-core';
import { authentication } from './authentication';
import { addCredentials } from './middleware';
import { findEmailVerification } from './operations/find-verification';
import { listCleaningFinished } from './operations/list-cleaning-finished';
import { verifyEmail } from './operations/verify-email';
import { verifyEmailListAction } from './operations/verify-email-list';

// package.json sits outside src/ and dist/ alike (one level up from both), so it is required at run time.
const { version } = require('../package.json') as { version: string };

/** The Zapier app definition: assembled here, each part in its own file. */
const App = {
  version,
  platformVersion,
  // createAppTester patches `http` for the whole process otherwise, which breaks nock in later test files.
  flags: { skipHttpPatch: true },
  authentication,
  beforeRequest: [addCredentials],
  // Keys repeat each operation's `key` (Zapier requires them equal; the definition test checks it).
  triggers: { list_cleaning_finished: listCleaningFinished },
  searches: { find_email_verification: findEmailVerification },
  creates: { verify_email: verifyEmail, verify_email_list: verifyEmailListAction },
};

export default App;
export { App };
export { toZapierError, throttleDelaySeconds } from './zapier-errors';
export { zapierEngineVerifier, zapierFetch } from './engine-verifier';
export { parseEmailList, MAX_LIST_ADDRESSES } from './email-list';
