// The entry Zapier loads (package.json "main"): the app compiled by `npm run build` into dist/.
module.exports = require('./dist/index.js').default;
