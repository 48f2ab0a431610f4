// Redaction for bundles: nothing secret leaves the machine in a bundle. One rule set, applied to every artifact's
// content and to every string of the cluster and node snapshots (node.json: sources, stderr, errors) before they
// are written. The rules cover: PEM private keys; credential keys in YAML, JSON, TOML, INI and env files
// (`token:`, `"password":`, `auth = "..."`, `identitytoken = "..."`, `BOOTSTRAP_TOKEN=...`, any `*_TOKEN`,
// `*_PASSWORD`, `*_SECRET` variable); credential flags in command lines (`--token abc`, `--password=x`);
// Authorization headers; kubeadm bootstrap tokens and JWTs wherever they appear; and container env values
// (`env[].value`) except for the configuration variables the checks read (CALICO_*, FELIX_*, ...).
// Idempotent: redacting redacted text changes nothing.

export const REDACTED = '[redacted-by-node-doctor]'

/** Key names that hold credentials (matched as a whole word, any case; `_`/`-` separated prefixes allowed). */
const SECRET_KEY_WORDS =
  'token|bearerToken|bearer-token|id-token|identitytoken|identity[-_]?token|registrytoken|refresh-token|client-key-data|password|passwd|passphrase|secret|client[-_]?secret|private[-_]?key|apiKey|api[-_]?key|access[-_]?key|secret[-_]?key|auth|credentials?'
/** A variable or key name: either exactly a secret word, or one ending in `_WORD` / `-word` (BOOTSTRAP_TOKEN, db-password). */
const SECRET_KEY = `(?:[A-Za-z0-9]+[_-])*(?:${SECRET_KEY_WORDS})`
const SECRET_KEY_ONLY = new RegExp(`^${SECRET_KEY}$`, 'i')

const PEM_PRIVATE = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----[\s\S]*?-----END \1-----/g
// key: value / key=value / "key": "value" / key = "value" (TOML, INI) / export KEY=value, on one line.
const SECRET_FIELD = new RegExp(`((?<![A-Za-z0-9_.-])["']?${SECRET_KEY}["']?[ \\t]*[:=][ \\t]*)("(?:[^"\\\\\\n]|\\\\.)*"|'[^'\\n]*'|[^\\s,}\\]\\n]+)`, 'gi')
// --token abc / --token=abc / -password x; flags naming a file, dir or path are not secrets themselves.
const SECRET_FLAG = new RegExp(`((?<![\\w-])--?(?:[a-z0-9]+-)*(?:token|password|passwd|secret|client-secret|api-key|access-key|secret-key|private-key|auth|credentials?)(?:-(?!file\\b|dir\\b|path\\b|ttl\\b|mode\\b)[a-z0-9]+)*)(=|[ \\t]+)(?!-)("[^"\\n]*"|'[^'\\n]*'|[^\\s"']+)`, 'gi')
const AUTH_HEADER = /(Authorization:\s*(?:Bearer|Basic)\s+)\S+/gi
// kubeadm bootstrap tokens: [a-z0-9]{6}.[a-z0-9]{16}.
const BOOTSTRAP_TOKEN = /(?<![A-Za-z0-9.])[a-z0-9]{6}\.[a-z0-9]{16}(?![A-Za-z0-9])/g
// JWTs (service account tokens): three base64url parts, the first a JSON header.
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g
// env entries inside text (YAML manifests, last-applied-configuration JSON).
const ENV_JSON = /("name"\s*:\s*"([^"\\]*)"\s*,\s*"value"\s*:\s*)("(?:[^"\\]|\\.)*")/g
const ENV_YAML = /(^[ \t]*-[ \t]+name:[ \t]*["']?([A-Za-z0-9_.-]+)["']?[ \t]*\n[ \t]+value:[ \t]*)(.*)$/gm

/** Container env variables whose values are configuration the checks read, never credentials. */
const ENV_KEEP = /^(?:CALICO_[A-Z0-9_]+|FELIX_[A-Z0-9_]+|IP|IP6|IP_AUTODETECTION_METHOD|IP6_AUTODETECTION_METHOD|NODENAME|NODE_NAME|CLUSTER_TYPE|DATASTORE_TYPE|WAIT_FOR_DATASTORE|KUBERNETES_SERVICE_HOST|KUBERNETES_SERVICE_PORT|KUBERNETES_SERVICE_PORT_HTTPS|KUBE_PROXY_MODE|NO_PROXY|TZ|LANG)$/

/** Whether an env variable's value may be stored: configuration names only, and never a secret-looking one. */
/** A key, variable or flag name that holds a credential (`token`, `db-password`, `BOOTSTRAP_TOKEN`), by the shared rule. */
export function isSecretKeyName(name: string): boolean {
  return SECRET_KEY_ONLY.test(name)
}

export function envValueKept(name: string): boolean {
  return ENV_KEEP.test(name) && !/(TOKEN|PASSWORD|PASSWD|SECRET|KEY|AUTH|CRED)/i.test(name)
}

/** Whether `text` holds REDACTED at `pos` (or just after a quote there). */
const redactedAt = (text: string, pos: number): boolean => text.startsWith(REDACTED, pos) || text.startsWith(REDACTED, pos + 1)

const quoted = (value: string): string => {
  const q = value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : ''
  return `${q}${REDACTED}${q}`
}

/** Replaces private keys, credential fields and flags, auth headers, bootstrap tokens, JWTs and env values. Idempotent. */
export function redactSecrets(text: string): string {
  if (text === '') return text
  return text
    .replace(PEM_PRIVATE, (_m, kind: string) => `-----BEGIN ${kind}-----\n${REDACTED}\n-----END ${kind}-----`)
    .replace(ENV_JSON, (m, head: string, name: string, value: string) => (envValueKept(name) || value.includes(REDACTED) ? m : `${head}"${REDACTED}"`))
    .replace(ENV_YAML, (m, head: string, name: string, value: string) => (envValueKept(name) || value.includes(REDACTED) || value.trim() === '' ? m : `${head}${quoted(value.trim())}`))
    .replace(SECRET_FIELD, (m, key: string, value: string, offset: number, whole: string) => {
      if (redactedAt(whole, offset + key.length) || /^["']?$/.test(value) || /^["']?(?:true|false)["']?$/i.test(value)) return m
      if (/^["']?\{?$/.test(value) || value === '{}' || value === '[]' || value === '|' || value === '>') return m // a nested block, not a value
      return `${key}${quoted(value)}`
    })
    .replace(SECRET_FLAG, (m, flag: string, sep: string, value: string, offset: number, whole: string) =>
      // --authentication-token-webhook=true is a switch, not a credential.
      redactedAt(whole, offset + flag.length + sep.length) || /^["']?(?:true|false)["']?$/i.test(value) ? m : `${flag}${sep}${quoted(value)}`,
    )
    .replace(AUTH_HEADER, (m, head: string) => (m.includes(REDACTED) ? m : `${head}${REDACTED}`))
    .replace(BOOTSTRAP_TOKEN, REDACTED)
    .replace(JWT, REDACTED)
}

/**
 * Deep copy of a JSON value with every string redacted; values under credential keys replaced whole; container
 * env values (`env: [{name, value}]`) replaced unless the variable is configuration (envValueKept).
 */
export function redactJson<T>(value: T): T {
  return walk(value, undefined, 0) as T
}

function walk(value: unknown, parentKey: string | undefined, depth: number): unknown {
  if (depth > 200) return REDACTED // deeper than any API object: not kept
  if (typeof value === 'string') return redactSecrets(value)
  if (Array.isArray(value)) return value.map((v) => walk(v, parentKey, depth + 1))
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>
    const isEnvEntry = parentKey === 'env' && typeof obj.name === 'string'
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(obj)) {
      if (isEnvEntry && k === 'value' && typeof v === 'string') out[k] = envValueKept(obj.name as string) ? redactSecrets(v) : REDACTED
      else if (typeof v === 'string' && isSecretKeyName(k) && v !== '') out[k] = REDACTED
      else out[k] = walk(v, k, depth + 1)
    }
    return out
  }
  return value
}
