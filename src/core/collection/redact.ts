// Redaction for bundles: nothing secret leaves the machine in a bundle. Applied to every artifact and every string
// in the cluster snapshot before it is written.

export const REDACTED = '[redacted-by-node-doctor]'

const PEM_PRIVATE = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----[\s\S]*?-----END \1-----/g
// key: value / key=value / "key": "value" for keys that hold credentials.
const SECRET_FIELD =
  /(["']?\b(?:token|bearerToken|bearer-token|client-key-data|password|passwd|secret|private[-_]?key|apiKey|api-key|access[-_]?key|secret[-_]?key)\b["']?\s*[:=]\s*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,}\n]+)/gi
const AUTH_HEADER = /(Authorization:\s*(?:Bearer|Basic)\s+)\S+/gi

/** Replaces private keys, credential fields and auth headers in text. Idempotent. */
export function redactSecrets(text: string): string {
  return text
    .replace(PEM_PRIVATE, (_m, kind: string) => `-----BEGIN ${kind}-----\n${REDACTED}\n-----END ${kind}-----`)
    .replace(SECRET_FIELD, (m, key: string, value: string) => {
      if (value.includes(REDACTED) || /^["']?$/.test(value)) return m
      const q = value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : ''
      return `${key}${q}${REDACTED}${q}`
    })
    .replace(AUTH_HEADER, (m, head: string) => (m.includes(REDACTED) ? m : `${head}${REDACTED}`))
}

/** Deep copy of a JSON value with every string redacted. */
export function redactJson<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T
  if (Array.isArray(value)) return value.map((v) => redactJson(v)) as T
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = /^(token|password|client-key-data)$/i.test(k) && typeof v === 'string' ? REDACTED : redactJson(v)
    return out as T
  }
  return value
}
