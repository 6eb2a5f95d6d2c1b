// Lint rules that catch what the type checker does not: unawaited promises
// (a stop or a cleanup that silently never happens), non-exhaustive switches
// over our unions, and type-only imports written as value imports; and the
// architecture's import rules (eslint.architecture.js).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { architecture } from './eslint.architecture.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/**', 'coverage/**'] },
  {
    files: ['src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // The sanitizers exist to match control characters in job output.
      'no-control-regex': 'off',
      'no-restricted-imports': ['error', { paths: [{ name: 'node:sqlite', message: 'Node 20 has no node:sqlite: use better-sqlite3 through core/store.' }] }],
    },
  },
  ...architecture,
);
