/**
 * fill-tmp: contained when the write stopped with ENOSPC at or below the
 * cap, the job ended success, and the file is not in the host's /tmp.
 */
import { describe, expect, it } from 'vitest';
import { fillTmp } from '../../../../src/core/probe/scenarios-filesystem.js';
import { job } from './facts.js';

const cap = 32 << 20;
const host = { capBytes: cap, onHost: false, hostFreeBefore: 10 << 30, hostFreeAfter: 10 << 30 };

describe('fill-tmp', () => {
  it('is contained with ENOSPC at the cap', () => {
    expect(fillTmp.judge(job(`nospace: ENOSPC after ${cap}\nprobe-done\n`), host).verdict).toBe('contained');
  });

  it('escapes when no ENOSPC came before four times the cap', () => {
    expect(fillTmp.judge(job(`nospace: none after ${cap * 4}\nprobe-done\n`), host).verdict).toBe('escaped');
  });

  it('escapes when ENOSPC came only past the cap', () => {
    expect(fillTmp.judge(job(`nospace: ENOSPC after ${cap * 2}\nprobe-done\n`), host).verdict).toBe('escaped');
  });

  it('escapes when the file shows up in the host /tmp', () => {
    expect(fillTmp.judge(job(`nospace: ENOSPC after ${cap}\nprobe-done\n`), { ...host, onHost: true }).verdict).toBe('escaped');
  });
});
