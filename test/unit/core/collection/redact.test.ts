import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {REDACTED, redactJson, redactSecrets} from '../../../../src/core/collection/redact.js'

describe('redactSecrets', () => {
  it('removes private keys, credential fields and auth headers, keeping everything else', () => {
    const text = [
      'apiVersion: v1',
      'users:',
      '- name: admin',
      '  user:',
      '    client-certificate-data: LS0tQ0VSVA==',
      '    client-key-data: LS0tS0VZ',
      '    token: abc.def.ghi',
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEpAIBAAKCAQEA',
      '-----END RSA PRIVATE KEY-----',
      'curl -H "Authorization: Bearer sekrit" https://x',
      '{"password": "hunter2", "mode": "ipvs"}',
    ].join('\n')
    const out = redactSecrets(text)
    for (const secret of ['LS0tS0VZ', 'abc.def.ghi', 'MIIEpAIBAAKCAQEA', 'sekrit', 'hunter2']) assert.ok(!out.includes(secret), secret)
    for (const kept of ['client-certificate-data: LS0tQ0VSVA==', '"mode": "ipvs"', '-----BEGIN RSA PRIVATE KEY-----']) assert.ok(out.includes(kept), kept)
    assert.equal(redactSecrets(out), out, 'idempotent')
    assert.ok(out.includes(`"password": "${REDACTED}"`))
  })

  it('redacts strings inside JSON values', () => {
    const v = redactJson({data: {'kubeconfig.conf': 'token: xyz', mode: 'iptables'}, list: ['password=p4ss']})
    assert.deepEqual(v, {data: {'kubeconfig.conf': `token: ${REDACTED}`, mode: 'iptables'}, list: [`password=${REDACTED}`]})
  })
})
