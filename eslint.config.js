import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/*
 * Import boundaries per folder (docs/architecture.md, "Folders and what may import what").
 *
 * A relative import names a folder of src/ by climbing exactly as many `../` as the importing file
 * sits below src/, so each rule is written once per depth: `../../server/x` from
 * src/engine/gateway/ is src/server, while the same text from src/engine/ would not be. Matching the
 * exact depth keeps the rules true if a domain ever gets a sub-folder named like a top-level one.
 */
const MAX_DEPTH = 6;
const SOURCES = '*.{ts,tsx,js,mjs}';

/** Config blocks that forbid files of `src/<folder>` from reaching the `src/` folders named. */
function boundary(folder, { folders = [], packages = [], onlyFolders, message }) {
  return Array.from({ length: MAX_DEPTH }, (_, below) => {
    const climb = `^(\\.\\./){${below + 1}}`;
    const patterns = [];
    if (folders.length > 0) patterns.push({ regex: `${climb}(${folders.join('|')})(/|$)`, message });
    // "Only these": a climb out of the folder lands anywhere but the allowed siblings.
    if (onlyFolders) patterns.push({ regex: `${climb}(?!(${onlyFolders.join('|')})/)`, message });
    if (packages.length > 0) patterns.push({ regex: `^(${packages.join('|')})(/|$)`, message });
    return {
      files: [`src/${folder}/${'*/'.repeat(below)}${SOURCES}`],
      rules: { 'no-restricted-imports': ['error', { patterns }] },
    };
  });
}

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', 'test-output/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Time is injected: use the engine Clock.' },
      ],
    },
  },
  {
    // Small modules named for what they hold: a file past 600 lines holds more than one thing.
    files: ['src/**'],
    rules: {
      'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src/ecommerce-client/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['examples/shop/shop.js'],
    languageOptions: { globals: { ...globals.browser, versapay: 'readonly' } },
  },
  {
    // Tests, benchmarks and the CLI measure wall time or build fixtures; the rule protects the engine.
    files: ['test/**', 'bench/**', 'scripts/**', 'src/cli/**', 'src/terminal/**', 'src/renderer/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  ...boundary('engine', {
    folders: ['server'],
    packages: ['express', 'electron'],
    message: 'The engine owns the rules and knows no transport: no server, express or electron.',
  }),
  ...boundary('store', {
    folders: ['engine'],
    message: 'The store knows no domain: the engine passes it configuration, never the other way.',
  }),
  ...boundary('terminal', {
    folders: ['store', 'server'],
    message: 'The terminal link speaks the device protocol only: no store, no server.',
  }),
  ...boundary('renderer', {
    // Plus the CSV samples, as text (`?raw`): the Imports screen offers them for download.
    onlyFolders: ['renderer', 'shared', '\\.\\./resources/samples'],
    packages: ['node:.*', 'electron', 'express', 'better-sqlite3', 'rxdb', 'serialport', 'pino', 'jose'],
    message: 'The renderer imports only its own code and src/shared; it talks to the engine over HTTP.',
  }),
  ...boundary('ecommerce-client', {
    onlyFolders: ['ecommerce-client', 'shared'],
    packages: ['node:.*'],
    message: "The payment frame and client.js run in shops' browsers: only their own code and src/shared.",
  }),
);
