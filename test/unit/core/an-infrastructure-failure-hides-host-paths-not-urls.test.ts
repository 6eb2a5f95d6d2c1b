/**
 * An infrastructure failure shown to a caller names no host path or loop
 * device (a mount's stderr would teach an agent the host's layout), but
 * keeps the job's own `/workspace` paths and a URL the user configured whole:
 * a Docker address read `tcp:<host path>` and `unix:<host path>` to a new
 * user, which named nothing they could check.
 */
import { describe, expect, it } from 'vitest';
import { withoutHostDetail } from '../../../src/core/infrastructure-errors.js';

describe('an infrastructure failure as the caller reads it', () => {
  it('hides host paths and loop devices', () => {
    expect(withoutHostDetail("mount: /run/headspace-native/ab12/img/w1: can't read superblock on /dev/loop7")).toBe(
      "mount: <host path> can't read superblock on <host path>",
    );
    expect(withoutHostDetail('losetup failed for loop3 (mkfs.ext4 /root/.headspace/native/w/storage.img)')).toBe(
      'losetup failed for a loop device (mkfs.ext4 <host path>)',
    );
  });

  it("keeps the job's /workspace paths", () => {
    expect(withoutHostDetail('cannot open /workspace/out.txt')).toBe('cannot open /workspace/out.txt');
  });

  it('keeps a URL whole, and hides the host path an error quotes after it', () => {
    expect(withoutHostDetail('no Docker Engine answers at tcp://127.0.0.1:2399: connect ECONNREFUSED 127.0.0.1:2399')).toBe(
      'no Docker Engine answers at tcp://127.0.0.1:2399: connect ECONNREFUSED 127.0.0.1:2399',
    );
    expect(withoutHostDetail('no Docker Engine answers at unix:///var/run/docker.sock: connect ENOENT /var/run/docker.sock')).toBe(
      'no Docker Engine answers at unix:///var/run/docker.sock: connect ENOENT <host path>',
    );
  });
});
