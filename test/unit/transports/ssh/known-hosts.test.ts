// known_hosts parsing and host key verification. Fixtures: test/fixtures/ssh/known_hosts and keys/*.pub
// (hashed lines and fingerprints were produced by OpenSSH's ssh-keygen, so they are the reference).
import assert from 'node:assert/strict'
import {createHmac} from 'node:crypto'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {
  blobKeyType,
  entryMatches,
  fingerprint,
  knownHostsName,
  lookupHostKey,
  matchPattern,
  parseKnownHosts,
  verifyHostKey,
} from '../../../../src/transports/ssh/known-hosts.js'
import {fixturePath, readFixture} from '../../../support/golden.js'

const blob = (name: string) => Buffer.from(readFixture(`ssh/keys/${name}.pub`).trim().split(/\s+/)[1]!, 'base64')
const ED = blob('k_ed25519')
const ECDSA = blob('k_ecdsa')
const RSA = blob('k_rsa')
const OTHER = blob('other_ed25519')
const kh = parseKnownHosts(readFixture('ssh/known_hosts'), fixturePath('ssh/known_hosts'))
const verify = (host: string, port: number, key: Buffer) => verifyHostKey(kh.entries, host, port, blobKeyType(key)!, key)

describe('parseKnownHosts', () => {
  it('keeps valid entries with file and line, reports @cert-authority as unsupported and skips bad lines', () => {
    assert.equal(kh.entries.length, 8)
    assert.deepEqual(
      kh.entries.map((e) => [e.line, e.keyType, e.marker ?? '', e.hosts.kind]),
      [
        [4, 'ssh-ed25519', '', 'patterns'],
        [5, 'ssh-ed25519', '', 'patterns'],
        [6, 'ecdsa-sha2-nistp256', '', 'patterns'],
        [7, 'ssh-rsa', '', 'patterns'],
        [8, 'ssh-ed25519', '', 'hashed'],
        [9, 'ssh-ed25519', '', 'hashed'],
        [10, 'ssh-ed25519', 'revoked', 'patterns'],
        [11, 'ssh-ed25519', '', 'patterns'],
      ],
    )
    assert.equal(kh.entries[0]!.file, fixturePath('ssh/known_hosts'))
    assert.deepEqual(kh.unsupported.map((u) => u.line), [12])
    assert.match(kh.unsupported[0]!.reason, /@cert-authority.*not supported/)
    assert.deepEqual(
      kh.invalid.map((i) => [i.line, i.reason]),
      [
        [13, 'key does not decode as line'],
        [14, 'key does not decode as ssh-ed25519'],
        [15, 'unknown marker @weird-marker'],
      ],
    )
  })

  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.string(), (s) => Array.isArray(parseKnownHosts(s).entries)))
  })
})

describe('verifyHostKey', () => {
  it('matches plain names and comma lists on port 22', () => {
    assert.equal(verify('node-1.example.com', 22, ED), 'match')
    assert.equal(verify('10.0.0.1', 22, ED), 'match')
    assert.equal(verify('NODE-1.example.com', 22, ED), 'match', 'host names compare case-insensitively')
  })

  it('uses [host]:port for other ports, and only there', () => {
    assert.equal(knownHostsName('10.0.0.2', 2222), '[10.0.0.2]:2222')
    assert.equal(knownHostsName('10.0.0.2', 22), '10.0.0.2')
    assert.equal(verify('10.0.0.2', 2222, ED), 'match')
    assert.equal(verify('10.0.0.2', 22, ED), 'unknown')
    assert.equal(verify('10.0.0.1', 2222, ED), 'unknown', 'a port-22 entry does not cover other ports')
  })

  it('honours wildcards, ? and negation', () => {
    assert.equal(verify('a.prod.example.com', 22, ECDSA), 'match')
    assert.equal(verify('bad.prod.example.com', 22, ECDSA), 'unknown', 'negated pattern wins')
    assert.equal(verify('node-7.lab', 22, RSA), 'match')
    assert.equal(verify('node-17.lab', 22, RSA), 'unknown', '? is exactly one character')
  })

  it('accepts hashed entries written by ssh-keygen -H, including [host]:port ones', () => {
    assert.equal(verify('hashed-node', 22, ED), 'match')
    assert.equal(verify('10.0.0.9', 2200, ED), 'match')
    assert.equal(verify('10.0.0.9', 22, ED), 'unknown')
    assert.equal(verify('hashed-node', 22, OTHER), 'changed')
  })

  it('reports a different key of the same type as changed, and a key of an unknown type as unknown', () => {
    const r = lookupHostKey(kh.entries, 'node-1.example.com', 22, OTHER)
    assert.equal(r.status, 'changed')
    assert.deepEqual(r.entries.map((e) => e.line), [4])
    assert.equal(verify('node-1.example.com', 22, ECDSA), 'unknown', 'OpenSSH treats another key type as new')
    assert.deepEqual(lookupHostKey(kh.entries, 'node-1.example.com', 22, ECDSA).knownTypes, ['ssh-ed25519'])
  })

  it('refuses @revoked keys even when a plain line lists the same key', () => {
    assert.equal(verify('10.0.0.3', 22, OTHER), 'revoked')
    assert.equal(verify('10.0.0.4', 22, OTHER), 'unknown', '@revoked applies to the hosts it names')
  })

  it('ignores @cert-authority lines', () => {
    assert.equal(verify('anything.example.com', 22, ED), 'unknown')
  })

  it('rejects a key type that contradicts the blob', () => {
    assert.throws(() => verifyHostKey(kh.entries, 'node-1.example.com', 22, 'ssh-rsa', ED), /not ssh-rsa/)
  })

  it('checks hashed entries with HMAC-SHA1 of the salt', () => {
    const salt = Buffer.from('0123456789abcdef0123')
    const hash = createHmac('sha1', salt).update('[127.0.0.1]:2022').digest()
    const line = `|1|${salt.toString('base64')}|${hash.toString('base64')} ssh-ed25519 ${ED.toString('base64')}`
    const [entry] = parseKnownHosts(line).entries
    assert.ok(entry && entryMatches(entry, '[127.0.0.1]:2022'))
    assert.ok(!entryMatches(entry, '127.0.0.1'))
  })
})

describe('fingerprint', () => {
  it('prints exactly what ssh-keygen -lf prints', () => {
    const expected = Object.fromEntries(
      readFixture('ssh/keys/fingerprints.txt')
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]),
    )
    for (const [file, fp] of Object.entries(expected)) assert.equal(fingerprint(blob(file.replace(/\.pub$/, ''))), fp, file)
  })
})

describe('matchPattern', () => {
  // Reference: the same glob turned into an anchored regex.
  const reference = (s: string, p: string) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's').test(s)

  it('agrees with a regex translation of the glob', () => {
    const str = fc.string({unit: fc.constantFrom('a', 'b', '.', '-'), maxLength: 8})
    const pat = fc.string({unit: fc.constantFrom('a', 'b', '.', '*', '?'), maxLength: 6})
    fc.assert(fc.property(str, pat, (s, p) => matchPattern(s, p) === reference(s, p)), {numRuns: 2000})
  })

  it('handles the usual host forms', () => {
    assert.ok(matchPattern('10.0.3.4', '10.0.*'))
    assert.ok(!matchPattern('10.0.3.4', '10.0.?'))
    assert.ok(matchPattern('node-1', 'node-?'))
    assert.ok(!matchPattern('node-', 'node-?'))
    assert.ok(matchPattern('', '*'))
  })
})
