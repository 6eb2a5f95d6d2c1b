/**
 * Secrets at egress on native (#18 item 3): a job whose egress channel names
 * a trust bundle gets it bound read-only at /run/headspace-ca-bundle.pem,
 * readable (never executable) under Landlock, and named by SSL_CERT_FILE,
 * NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE and GIT_SSL_CAINFO,
 * which the caller's env may override. A job without secrets gets none of it,
 * and no plan binds anything under HEADSPACE_HOME's CA directory.
 */
import { expect, it } from 'vitest';
import { defaultPolicy, type Policy } from '../../../../src/core/policy/policy.js';
import { planBwrap } from '../../../../src/providers/native/plan-bwrap.js';
import { planJobEntry } from '../../../../src/providers/native/plan-job-entry.js';
import { bwrapPlanInput } from './bwrap-plan-input.js';

const allowList: Policy = { ...defaultPolicy(), network: 'allowlist', networkAllow: ['api.test'] };
const budget = defaultPolicy().budget;
const VARS = ['SSL_CERT_FILE', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO'];

it('binds the bundle read-only and names it in the TLS variables, the caller able to override one', () => {
  const bundle = '/run/headspace-egress/tag+1+ws+abc/ca-bundle.pem';
  const { args, env } = planBwrap(bwrapPlanInput({ policy: allowList, egressSocket: '/s', caBundle: bundle, env: { CURL_CA_BUNDLE: '/workspace/mine.pem' } }));
  const at = args.indexOf(bundle);
  expect(args.slice(at - 1, at + 2)).toEqual(['--ro-bind', bundle, '/run/headspace-ca-bundle.pem']);
  for (const name of VARS.filter((v) => v !== 'CURL_CA_BUNDLE')) expect(env[name], name).toBe('/run/headspace-ca-bundle.pem');
  expect(env.CURL_CA_BUNDLE).toBe('/workspace/mine.pem');
  expect(args.join(' ')).not.toMatch(/ca-key|leaf-key|\/ca\//);
});

it('lets Landlock read the bundle only when the job has one', () => {
  const entry = planJobEntry({ argv: ['true'], exposures: [], hostPaths: [], budget, egress: true, caBundle: true });
  const at = entry.indexOf('/run/headspace-ca-bundle.pem');
  expect(entry[at - 1]).toBe('--read');
  expect(at).toBeLessThan(entry.indexOf('--'));
  expect(planJobEntry({ argv: ['true'], exposures: [], hostPaths: [], budget, egress: true })).not.toContain('/run/headspace-ca-bundle.pem');
});

it('gives a job without secrets no bundle and no TLS variables', () => {
  const { args, env } = planBwrap(bwrapPlanInput({ policy: allowList, egressSocket: '/s' }));
  expect(args).not.toContain('/run/headspace-ca-bundle.pem');
  for (const name of VARS) expect(env[name]).toBeUndefined();
});
