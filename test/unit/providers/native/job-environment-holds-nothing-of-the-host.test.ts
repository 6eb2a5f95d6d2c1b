/**
 * The job's environment is built from scratch: a few defaults (PATH, HOME,
 * LANG, …) plus request.env, which may override them. Nothing of the host
 * process's environment (tokens, NODE_EXTRA_CA_CERTS, …) reaches it.
 */
import { expect, it } from 'vitest';
import { planEnv } from '../../../../src/providers/native/plan-bwrap.js';

it('starts from defaults, adds the request and never reads process.env', () => {
  process.env.HEADSPACE_HOST_CANARY = 'leak';
  const env = planEnv({ FOO: 'bar', HOME: '/workspace' });
  expect(env).toEqual({
    PATH: expect.stringContaining('/usr/bin'),
    HOME: '/workspace',
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    FOO: 'bar',
  });
  expect(JSON.stringify(env)).not.toContain('leak');
  delete process.env.HEADSPACE_HOST_CANARY;
});

it('refuses variable names that could smuggle a second variable', () => {
  expect(() => planEnv({ 'A=B': 'x' })).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
  expect(() => planEnv({ A: 'x\0y' })).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
});
