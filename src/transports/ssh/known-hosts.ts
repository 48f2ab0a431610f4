// OpenSSH known_hosts: parsing, host matching (plain, [host]:port, wildcards, negation, hashed |1| entries)
// and key verification with the same outcomes as ssh(1). Mirrors hostfile.c / match.c of OpenSSH 9.x.
import {createHash, createHmac, timingSafeEqual} from 'node:crypto'

export interface KnownHostEntry {
  /** File the entry came from ('' when parsed from a string without a name) and its 1-based line. */
  file: string
  line: number
  marker?: 'revoked'
  /** Comma-separated patterns, or a hashed name. */
  hosts: {kind: 'patterns'; patterns: string[]} | {kind: 'hashed'; salt: Buffer; hash: Buffer}
  keyType: string
  key: Buffer
}

export interface KnownHostsProblem {
  file: string
  line: number
  reason: string
}

export interface KnownHosts {
  entries: KnownHostEntry[]
  /** Lines understood but not supported (@cert-authority): they never match. */
  unsupported: KnownHostsProblem[]
  /** Lines that could not be parsed; they are skipped, as ssh(1) does. */
  invalid: KnownHostsProblem[]
}

export type HostKeyStatus = 'match' | 'unknown' | 'changed' | 'revoked'

/** Parses known_hosts text. Never throws: bad lines are reported in `invalid` and skipped. */
export function parseKnownHosts(text: string, file = ''): KnownHosts {
  const out: KnownHosts = {entries: [], unsupported: [], invalid: []}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim()
    if (raw === '' || raw.startsWith('#')) continue
    const line = i + 1
    const fields = raw.split(/\s+/)
    let marker: KnownHostEntry['marker']
    if (fields[0]!.startsWith('@')) {
      const m = fields.shift()!
      if (m === '@cert-authority') {
        out.unsupported.push({file, line, reason: '@cert-authority entries (host certificates) are not supported; the line is ignored'})
        continue
      }
      if (m !== '@revoked') {
        out.invalid.push({file, line, reason: `unknown marker ${m}`})
        continue
      }
      marker = 'revoked'
    }
    const [hostField, keyType, keyB64] = fields
    if (!hostField || !keyType || !keyB64) {
      out.invalid.push({file, line, reason: 'expected "hosts keytype base64-key [comment]"'})
      continue
    }
    const key = Buffer.from(keyB64, 'base64')
    if (blobKeyType(key) !== keyType || !wellFormed(key)) {
      out.invalid.push({file, line, reason: `key does not decode as ${keyType}`})
      continue
    }
    let hosts: KnownHostEntry['hosts']
    if (hostField.startsWith('|')) {
      const m = /^\|1\|([^|]+)\|([^|]+)$/.exec(hostField)
      if (!m) {
        out.invalid.push({file, line, reason: 'hashed host name is not |1|salt|hash'})
        continue
      }
      hosts = {kind: 'hashed', salt: Buffer.from(m[1]!, 'base64'), hash: Buffer.from(m[2]!, 'base64')}
      if (hosts.hash.length !== 20) {
        out.invalid.push({file, line, reason: 'hashed host name does not hold an HMAC-SHA1'})
        continue
      }
    } else {
      hosts = {kind: 'patterns', patterns: hostField.split(',').filter(Boolean)}
    }
    const entry: KnownHostEntry = {file, line, hosts, keyType, key}
    if (marker) entry.marker = marker
    out.entries.push(entry)
  }
  return out
}

/** The name ssh(1) looks up: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`
}

/** Whether an entry's host field matches `name` (already in knownHostsName form). */
export function entryMatches(entry: KnownHostEntry, name: string): boolean {
  const lower = name.toLowerCase()
  if (entry.hosts.kind === 'hashed') {
    const h = createHmac('sha1', entry.hosts.salt).update(lower).digest()
    return timingSafeEqual(h, entry.hosts.hash)
  }
  let matched = false
  for (const p of entry.hosts.patterns) {
    const negated = p.startsWith('!')
    if (matchPattern(lower, (negated ? p.slice(1) : p).toLowerCase())) {
      if (negated) return false
      matched = true
    }
  }
  return matched
}

/** OpenSSH match_pattern: `*` any run, `?` exactly one character, everything else literal. */
export function matchPattern(s: string, pattern: string): boolean {
  // Iterative glob with single-star backtracking: linear in practice, no regex building.
  let si = 0
  let pi = 0
  let star = -1
  let mark = 0
  while (si < s.length) {
    const pc = pattern[pi]
    if (pc === '*') {
      star = pi++
      mark = si
    } else if (pc !== undefined && (pc === '?' || pc === s[si])) {
      si++
      pi++
    } else if (star >= 0) {
      pi = star + 1
      si = ++mark
    } else {
      return false
    }
  }
  while (pattern[pi] === '*') pi++
  return pi === pattern.length
}

export interface HostKeyLookup {
  status: HostKeyStatus
  /** The entry that matched (match/revoked), or the entries holding a different key of the same type (changed). */
  entries: KnownHostEntry[]
  /** Key types known for this host (for host key algorithm preference). */
  knownTypes: string[]
}

/** Full lookup: the status plus the entries that decided it. */
export function lookupHostKey(entries: readonly KnownHostEntry[], host: string, port: number, keyBlob: Buffer): HostKeyLookup {
  const name = knownHostsName(host, port)
  const type = blobKeyType(keyBlob)
  const forHost = entries.filter((e) => entryMatches(e, name))
  const revoked = forHost.filter((e) => e.marker === 'revoked' && e.key.equals(keyBlob))
  const knownTypes = [...new Set(forHost.filter((e) => !e.marker).map((e) => e.keyType))]
  if (revoked.length > 0) return {status: 'revoked', entries: revoked, knownTypes}
  const plain = forHost.filter((e) => !e.marker)
  const same = plain.filter((e) => e.key.equals(keyBlob))
  if (same.length > 0) return {status: 'match', entries: same, knownTypes}
  const conflicting = plain.filter((e) => e.keyType === type)
  if (conflicting.length > 0) return {status: 'changed', entries: conflicting, knownTypes}
  return {status: 'unknown', entries: [], knownTypes}
}

/**
 * What ssh(1) would conclude about `keyBlob` presented by host:port. `keyType` is checked against the blob
 * (a mismatch can only be a caller bug). A key of another type than the known ones is 'unknown', as in OpenSSH.
 */
export function verifyHostKey(entries: readonly KnownHostEntry[], host: string, port: number, keyType: string, keyBlob: Buffer): HostKeyStatus {
  if (blobKeyType(keyBlob) !== keyType) throw new Error(`key blob is ${blobKeyType(keyBlob) ?? 'not a key'}, not ${keyType}`)
  return lookupHostKey(entries, host, port, keyBlob).status
}

/** `SHA256:<base64 without padding>` of a public key blob, exactly as `ssh-keygen -lf` prints it. */
export function fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`
}

/** The key type named inside an SSH public key blob (its first string), or undefined if it is not one. */
export function blobKeyType(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined
  const n = blob.readUInt32BE(0)
  if (n === 0 || n > 64 || 4 + n > blob.length) return undefined
  const t = blob.toString('latin1', 4, 4 + n)
  return /^[a-z0-9@.-]+$/.test(t) ? t : undefined
}

/** A key blob is a sequence of length-prefixed strings with nothing left over. */
function wellFormed(blob: Buffer): boolean {
  let p = 0
  while (p < blob.length) {
    if (p + 4 > blob.length) return false
    p += 4 + blob.readUInt32BE(p)
  }
  return p === blob.length
}

/** The label ssh-keygen prints for a key type: ED25519, ECDSA, RSA, ... */
export function keyTypeLabel(type: string): string {
  if (type === 'ssh-ed25519') return 'ED25519'
  if (type.startsWith('ecdsa-sha2-')) return 'ECDSA'
  if (type === 'ssh-rsa') return 'RSA'
  if (type === 'ssh-dss') return 'DSA'
  if (type.startsWith('sk-ssh-ed25519')) return 'ED25519-SK'
  if (type.startsWith('sk-ecdsa')) return 'ECDSA-SK'
  return type
}
