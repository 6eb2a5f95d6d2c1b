import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { certificateSerial } from '../../../../src/core/network/egress-ca.js';

// Red team (#18 item 3): a serial drawn as "0" + random hex began with a zero byte about once in a thousand leaves;
// node-forge wrote it as a padded DER INTEGER, Node's TLS refused the leaf with "illegal padding", and the throw
// took down the proxy's host process. Every serial must encode as a minimal, positive INTEGER.
describe('a leaf certificate serial', () => {
  it('always starts with a byte from 0x01 to 0x7f, so its DER INTEGER is positive and unpadded (20,000 draws)', () => {
    for (let i = 0; i < 20_000; i++) {
      const hex = certificateSerial();
      expect(hex).toMatch(/^[0-9a-f]{32}$/);
      const first = parseInt(hex.slice(0, 2), 16);
      expect(first).toBeGreaterThanOrEqual(1);
      expect(first).toBeLessThanOrEqual(0x7f);
    }
  });

  it('round-trips through a certificate node-forge encodes and parses', () => {
    const keys = forge.pki.rsa.generateKeyPair({ bits: 512, e: 0x10001 });
    for (let i = 0; i < 20; i++) {
      const cert = forge.pki.createCertificate();
      cert.publicKey = keys.publicKey;
      cert.serialNumber = certificateSerial();
      cert.validity.notBefore = new Date();
      cert.validity.notAfter = new Date(Date.now() + 86_400_000);
      cert.setSubject([{ name: 'commonName', value: 'api.test' }]);
      cert.setIssuer([{ name: 'commonName', value: 'test ca' }]);
      cert.sign(keys.privateKey, forge.md.sha256.create());
      const der = forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes();
      const parsed = forge.pki.certificateFromAsn1(forge.asn1.fromDer(der));
      expect(parsed.serialNumber).toBe(cert.serialNumber);
    }
  });
});
