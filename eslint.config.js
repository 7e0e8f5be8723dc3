const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const { importRules } = require('./eslint.import-rules');

module.exports = tseslint.config(
  // test/lint-fixtures: deliberately wrong imports, linted by test/lint/import-rules.test.ts under the paths they stand for.
  { ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**', 'test-output/**', 'test/lint-fixtures/**', '.jest-quick/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // The web dashboard (webhooks-in/dashboard, Preact + TSX): a browser bundle, linted like the rest.
    files: ['**/*.tsx', 'webhooks-in/dashboard/**/*.ts'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', history: 'readonly', fetch: 'readonly' } },
  },
  ...importRules,
);
