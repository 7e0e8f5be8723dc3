/**
 * What an engine API key's name (and account) may be: checked by the engine's key store and, before it,
 * by the hub's API keys route, so both refuse the same names with the same words.
 */
export const KEY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
export const KEY_NAME_RULE = 'must be 1-64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit';
