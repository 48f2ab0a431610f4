// How to reach a node over SSH: flags > OpenSSH client config (~/.ssh/config or --ssh-config) > defaults.
// The config file is read into lines by ssh-config-file.ts; values are computed here with OpenSSH's readconf.c rules
// (first obtained value wins, IdentityFile accumulates, Include is conditional, ProxyJump and ProxyCommand exclude
// each other) rather than with the `ssh-config` library's compute(), which treats `?` as "zero or one character"
// and runs `Match exec` commands. Match supports all, host, originalhost, user, localuser and `!` negation; a block with
// canonical, final, exec, localnetwork, tagged, version, sessiontype or command is skipped with a note. Directives
// node-doctor has no use for (forwarding, ControlMaster, ciphers, ...) are read and ignored.
import {createHash} from 'node:crypto'
import {existsSync, readFileSync} from 'node:fs'
import {hostname, userInfo} from 'node:os'
import {join} from 'node:path'
import {UsageError} from '../../errors.js'
import {hostProblem} from '../../core/net/host.js'
import {matchPattern} from './known-hosts.js'
import {type ConfigFile, type ConfigLine, expandInclude, parseConfigText, readConfigFile} from './ssh-config-file.js'

export type StrictHostKeyChecking = 'yes' | 'accept-new' | 'no'

export interface SshFlags {
  user?: string
  identity?: string
  port?: number
  /** `[user@]host[:port]` hops, comma-separated, outermost first; `none` disables a configured ProxyJump. */
  jump?: string
  sshConfigPath?: string
  insecureSkipHostKeyCheck?: boolean
}

export interface SshTarget {
  /** The name looked up in the ssh config (node name, its address, or a jump host as written). */
  name: string
  host: string
  port: number
  user: string
  /** Private key files to try, in order. Defaults are listed only when they exist. */
  identityFiles: string[]
  /** Use only these identities (ssh-agent keys only when they match one of them). */
  identitiesOnly: boolean
  /** Jump hosts, outermost first; empty for a direct connection (always empty on the hops themselves). */
  proxyJump: SshTarget[]
  knownHostsFiles: string[]
  strictHostKeyChecking: StrictHostKeyChecking
  /** Name to look up in known_hosts instead of host/[host]:port. */
  hostKeyAlias?: string
  connectTimeoutMs?: number
  /** ssh-agent socket: IdentityAgent, else SSH_AUTH_SOCK; '' when disabled (IdentityAgent none). */
  identityAgent?: string
  /**
   * ProxyCommand with %h %p %r %n expanded: its stdin/stdout carry the connection. Only on the first hop of a
   * connection (the node when there is no ProxyJump), as ssh(1) uses it.
   */
  proxyCommand?: string
}

export interface ResolvedSshTarget extends SshTarget {
  /** Things the user may want to know (ignored Match blocks, missing identity files, ...). */
  notes: string[]
}

export interface ResolveSshTargetInput {
  nodeName: string
  /** The node's InternalIP, used as HostName when the config gives none. */
  address?: string
  flags: SshFlags
  env: Readonly<Record<string, string | undefined>>
  home: string
  /** Local user name (defaults to USER, then the OS). */
  localUser?: string
  /** Local host name for %l/%L/%C (defaults to the OS). */
  localHost?: string
}

const MAX_HOPS = 8
const MAX_INCLUDE_DEPTH = 16
/** Directives that accumulate instead of first-wins. */
const ACCUMULATE = new Set(['identityfile', 'certificatefile', 'localforward', 'remoteforward', 'dynamicforward', 'sendenv', 'setenv'])

type Values = Map<string, string[]>

/** Resolves the connection parameters for one node. Throws UsageError for unusable explicit input. */
export function resolveSshTarget(input: ResolveSshTargetInput): ResolvedSshTarget {
  // The node name and address come from the API (the address is whatever the node reported): data, never shell text.
  assertHost(input.nodeName, `node name`)
  if (input.address !== undefined) assertHost(input.address, `node ${input.nodeName}'s address`)
  const notes: string[] = []
  const localUser = input.localUser ?? input.env.USER ?? safeUserName()
  const config = loadConfig(input)
  const ctx = {input, config, notes, localUser, localHost: input.localHost ?? hostname()}

  let lookup = input.nodeName
  const byName = computeValues(config, lookup, ctx, input.flags.user)
  let values = byName.values
  if (input.address && !byName.specific) {
    const byAddress = computeValues(config, input.address, ctx, input.flags.user)
    if (byAddress.specific) {
      notes.push(`no ssh config Host entry names node ${input.nodeName}; using the entry for its address ${input.address}`)
      lookup = input.address
      values = byAddress.values
    }
  }
  const hostName = first(values, 'hostname')
  const host = hostName !== undefined ? expandHostName(hostName, lookup) : (input.address ?? input.nodeName)

  const target = buildTarget(ctx, {
    name: lookup,
    values,
    host,
    user: input.flags.user,
    port: input.flags.port,
  })

  const jumpSpec = input.flags.jump ?? first(values, 'proxyjump')
  // As `ssh -J` on the command line: --ssh-jump (even `none`) wins over a configured ProxyCommand.
  if (input.flags.jump !== undefined) delete target.proxyCommand
  if (jumpSpec !== undefined && jumpSpec.toLowerCase() !== 'none') {
    target.proxyJump = resolveJumpChain(ctx, jumpSpec, 0)
  }
  return {...target, notes}
}

interface Ctx {
  input: ResolveSshTargetInput
  config: ConfigFile | undefined
  notes: string[]
  localUser: string
  localHost: string
}

/** Hops of a ProxyJump value, outermost first; the first hop's own ProxyJump is followed (as ssh -J does). */
function resolveJumpChain(ctx: Ctx, spec: string, depth: number): SshTarget[] {
  const hops: SshTarget[] = []
  const specs = parseJumpSpec(spec)
  for (let i = 0; i < specs.length; i++) {
    const s = specs[i]!
    const {values} = computeValues(ctx.config, s.host, ctx, s.user)
    const hostName = first(values, 'hostname')
    const hop = buildTarget(ctx, {
      name: s.host,
      values,
      host: hostName !== undefined ? expandHostName(hostName, s.host) : s.host,
      user: s.user,
      port: s.port,
    })
    // Later hops are reached through the previous one, never through their own ProxyCommand.
    if (i > 0) delete hop.proxyCommand
    if (i === 0) {
      const own = first(values, 'proxyjump')
      if (own !== undefined && own.toLowerCase() !== 'none') {
        if (depth >= MAX_HOPS) throw new UsageError(`ProxyJump chain for ${s.host} is longer than ${MAX_HOPS} hops (a loop in the ssh config?)`)
        hops.push(...resolveJumpChain(ctx, own, depth + 1))
      }
    }
    hops.push(hop)
  }
  if (hops.length > MAX_HOPS) throw new UsageError(`ProxyJump chain "${spec}" is longer than ${MAX_HOPS} hops (a loop in the ssh config?)`)
  return hops
}

function buildTarget(
  ctx: Ctx,
  p: {name: string; values: Values; host: string; user: string | undefined; port: number | undefined},
): SshTarget {
  const {input, notes} = ctx
  const user = p.user ?? first(p.values, 'user') ?? ctx.localUser
  const portText = first(p.values, 'port')
  const port = p.port ?? (portText === undefined ? 22 : Number(portText))
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`invalid ssh port ${p.port ?? portText} for ${p.name}`)
  }
  if (p.values.has('proxyusefdpass') && yes(first(p.values, 'proxyusefdpass'))) notes.push(`ProxyUseFdpass for ${p.name} is not supported; the ProxyCommand's stdin/stdout are used`)
  const alias = first(p.values, 'hostkeyalias')
  const tokens: Tokens = {
    d: input.home,
    u: ctx.localUser,
    l: ctx.localHost,
    h: p.host,
    n: p.name,
    p: String(port),
    r: user,
    k: alias ?? p.name,
    i: typeof process.getuid === 'function' ? String(process.getuid()) : '0',
  }

  const identityFiles: string[] = []
  if (input.flags.identity) {
    const f = expandPath(input.flags.identity, tokens, input.home)
    if (!existsSync(f)) throw new UsageError(`identity file ${f} (-i/--ssh-identity) does not exist`)
    identityFiles.push(f)
  }
  const configured = p.values.get('identityfile') ?? []
  for (const raw of configured) {
    if (raw.toLowerCase() === 'none') continue
    const f = expandPath(raw, tokens, input.home)
    if (existsSync(f)) identityFiles.push(f)
    else notes.push(`IdentityFile ${f} for ${p.name} does not exist; skipped`)
  }
  // As ssh(1): the default keys only when neither -i nor IdentityFile named any.
  if (configured.length === 0 && !input.flags.identity) {
    for (const n of ['id_ed25519', 'id_ecdsa', 'id_rsa']) {
      const f = join(input.home, '.ssh', n)
      if (existsSync(f)) identityFiles.push(f)
    }
  }

  const userFiles = p.values.get('userknownhostsfile') ?? ['~/.ssh/known_hosts', '~/.ssh/known_hosts2']
  const globalFiles = p.values.get('globalknownhostsfile') ?? ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2']
  const knownHostsFiles = [...userFiles, ...globalFiles].filter((f) => f.toLowerCase() !== 'none').map((f) => expandPath(f, tokens, input.home))

  const target: SshTarget = {
    name: p.name,
    host: p.host,
    port,
    user,
    identityFiles: [...new Set(identityFiles)],
    identitiesOnly: yes(first(p.values, 'identitiesonly')),
    proxyJump: [],
    knownHostsFiles: [...new Set(knownHostsFiles)],
    strictHostKeyChecking: input.flags.insecureSkipHostKeyCheck ? 'no' : strictness(first(p.values, 'stricthostkeychecking')),
  }
  if (alias !== undefined) target.hostKeyAlias = alias
  const agent = identityAgent(first(p.values, 'identityagent'), input.env, tokens, input.home)
  if (agent !== undefined) target.identityAgent = agent
  const timeout = first(p.values, 'connecttimeout')
  if (timeout !== undefined && Number(timeout) > 0) target.connectTimeoutMs = Number(timeout) * 1000
  const proxy = first(p.values, 'proxycommand')
  if (proxy !== undefined && proxy.toLowerCase() !== 'none') target.proxyCommand = expandProxyCommand(proxy, {h: p.host, p: String(port), r: user, n: p.name})
  return target
}

/**
 * ProxyCommand accepts %h %p %r %n and %% (ssh_config(5) TOKENS). The result runs under `$SHELL -c`, so a token value
 * may hold only characters that mean nothing to a shell (as OpenSSH refuses since 9.6, CVE-2023-51385): a host,
 * port, user or node name with anything else is refused, never quoted and hoped for.
 */
export function expandProxyCommand(value: string, t: {h: string; p: string; r: string; n: string}): string {
  return value.replace(/%(.)/g, (whole, c: string) => {
    if (c === '%') return '%'
    const v = (t as Record<string, string>)[c]
    if (v === undefined) throw new UsageError(`unsupported token ${whole} in ProxyCommand "${value}"`, 'ProxyCommand accepts %h, %p, %r, %n and %%.')
    if (!SHELL_INERT.test(v)) {
      throw new UsageError(
        `refusing to expand ${whole} in ProxyCommand: its value ${JSON.stringify(v)} contains characters a shell would interpret`,
        'Host names, users and ports put into a ProxyCommand may contain only letters, digits and . _ - : @ % [ ] (as ssh(1) requires).',
      )
    }
    return v
  })
}

/** Characters a POSIX shell gives no meaning to, outside of the first word (IPv6 brackets and zone ids included). */
const SHELL_INERT = /^[A-Za-z0-9._:@%[\]-]+$/

function assertHost(value: string, origin: string): void {
  const why = hostProblem(value)
  if (why !== undefined) {
    throw new UsageError(
      `${origin} ${JSON.stringify(value)} is not an IP address or a DNS name (${why}); refusing to connect to it`,
      'A Node reports its own status.addresses; check the node (or pick another with --address-type).',
    )
  }
}

function identityAgent(value: string | undefined, env: ResolveSshTargetInput['env'], tokens: Tokens, home: string): string | undefined {
  if (value === undefined || value === 'SSH_AUTH_SOCK') return env.SSH_AUTH_SOCK
  if (value.toLowerCase() === 'none') return ''
  if (value.startsWith('$')) return env[value.slice(1)] ?? ''
  return expandPath(value, tokens, home)
}

/** `[user@]host[:port]` or `ssh://[user@]host[:port]`, comma-separated. IPv6 hosts in brackets. */
export function parseJumpSpec(spec: string): Array<{user?: string; host: string; port?: number}> {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^(?:ssh:\/\/)?(?:([^@]+)@)?(\[[^\]]+\]|[^:@/]+)(?::(\d+))?\/?$/.exec(s)
      if (!m) throw new UsageError(`cannot parse jump host "${s}": expected [user@]host[:port]`)
      const hop: {user?: string; host: string; port?: number} = {host: m[2]!.replace(/^\[(.*)\]$/, '$1')}
      if (m[1]) hop.user = m[1]
      if (m[3]) hop.port = Number(m[3])
      return hop
    })
}

function loadConfig(input: ResolveSshTargetInput): ConfigFile | undefined {
  const explicit = input.flags.sshConfigPath
  const path = explicit ?? join(input.home, '.ssh', 'config')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    if (explicit) throw new UsageError(`cannot read ssh config ${path} (--ssh-config): ${(err as Error).message}`)
    return undefined
  }
  return parseConfigText(text, path)
}

/**
 * The config values for `host` (lower-case directive → values). `specific` tells whether a Host line other
 * than a bare `*` matched.
 */
function computeValues(config: ConfigFile | undefined, host: string, ctx: Ctx, userOverride: string | undefined): {values: Values; specific: boolean} {
  const values: Values = new Map()
  let specific = false
  if (!config) return {values, specific}
  // ssh(1) lower-cases the host it is given; patterns are compared as written.
  const name = host.toLowerCase()
  const set = (key: string, value: string[]) => {
    if (ACCUMULATE.has(key)) values.set(key, [...(values.get(key) ?? []), ...value])
    // ProxyJump and ProxyCommand (either of them `none` too): whichever comes first prevents the other.
    else if ((key === 'proxyjump' || key === 'proxycommand') && (values.has('proxyjump') || values.has('proxycommand'))) return
    else if (!values.has(key)) values.set(key, value)
  }
  // What Match criteria see: the values obtained so far (readconf.c match_cfg_line).
  const matchState = (): MatchState => {
    const hostName = first(values, 'hostname')
    return {
      host: (hostName !== undefined ? expandHostName(hostName, name) : name).toLowerCase(),
      originalHost: name,
      user: userOverride ?? first(values, 'user') ?? ctx.localUser,
      localUser: ctx.localUser,
    }
  }
  const walk = (file: ConfigFile, lines: readonly ConfigLine[], active: boolean, depth: number) => {
    for (const line of lines) {
      if (line.kind === 'match') {
        const m = active ? evaluateMatch(line.raw, matchState(), file.path, ctx.notes) : {hit: false, namesHost: false}
        if (m.hit && m.namesHost) specific = true
        walk(file, line.body, m.hit, depth)
        continue
      }
      if (line.kind === 'host') {
        const hit = active && hostMatches(name, line.patterns)
        if (hit && line.patterns.some((p) => p !== '*')) specific = true
        walk(file, line.body, hit, depth)
        continue
      }
      if (!active) continue
      if (line.kind === 'include') {
        if (depth >= MAX_INCLUDE_DEPTH) throw new UsageError(`ssh config Include nested more than ${MAX_INCLUDE_DEPTH} deep in ${file}`)
        for (const inc of expandInclude(line.args, ctx.input.home)) {
          const included = readConfigFile(inc)
          if (included) walk(included, included.lines, true, depth + 1)
        }
        continue
      }
      set(line.key, line.values)
    }
  }
  walk(config, config.lines, true, 0)
  return {values, specific}
}

interface MatchState {
  /** HostName obtained so far (%h expanded), else the name looked up; lower case. */
  host: string
  /** The name looked up (node name, address or jump host), lower case. */
  originalHost: string
  /** Remote user: the flag, else User obtained so far, else the local user. */
  user: string
  localUser: string
}

const MATCH_UNSUPPORTED = new Set(['canonical', 'final', 'exec', 'localnetwork', 'tagged', 'version', 'sessiontype', 'command'])

/** Words of a Match line as OpenSSH splits them: whitespace-separated, "double quotes" group, `#` ends the line. */
function matchWords(raw: string): string[] {
  const words: string[] = []
  for (const m of raw.matchAll(/"([^"]*)"|(\S+)/g)) {
    if (m[2]?.startsWith('#')) break
    words.push(m[1] ?? m[2]!)
  }
  return words
}

/**
 * Evaluates the criteria of one Match line (all must hold; `!criterion` negates one). `namesHost`: a positive
 * host or originalhost criterion matched, so the block is an entry for this host (like a Host line).
 */
export function evaluateMatch(raw: string, state: MatchState, file: string, notes: string[]): {hit: boolean; namesHost: boolean} {
  const words = matchWords(raw)
  if (words.length === 0) throw new UsageError(`ssh config ${file}: Match needs criteria ("Match host PATTERN", "Match all", ...)`)
  let hit = true
  let namesHost = false
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const negate = word.startsWith('!')
    const criterion = (negate ? word.slice(1) : word).toLowerCase()
    if (criterion === 'all') {
      if (words.some((w, j) => j !== i && !/^!?(canonical|final)$/i.test(w))) throw new UsageError(`ssh config ${file}: "Match ${raw}": 'all' cannot be combined with other Match criteria`)
      if (negate) hit = false
      continue
    }
    if (MATCH_UNSUPPORTED.has(criterion)) {
      const note = `ssh config ${file}: "Match ${raw}" was skipped: node-doctor does not evaluate Match ${criterion}`
      if (!notes.includes(note)) notes.push(note)
      return {hit: false, namesHost: false}
    }
    const arg = words[++i]
    if (arg === undefined) throw new UsageError(`ssh config ${file}: "Match ${raw}": ${criterion} needs a pattern list`)
    let subject: string
    if (criterion === 'host') subject = state.host
    else if (criterion === 'originalhost') subject = state.originalHost
    else if (criterion === 'user') subject = state.user
    else if (criterion === 'localuser') subject = state.localUser
    else throw new UsageError(`ssh config ${file}: "Match ${raw}": unsupported Match criterion ${word}`)
    const hostLike = criterion === 'host' || criterion === 'originalhost'
    const ok = hostMatches(subject, (hostLike ? arg.toLowerCase() : arg).split(','))
    if (ok === negate) hit = false
    else if (!negate && hostLike) namesHost = true
  }
  return {hit, namesHost: hit && namesHost}
}

/** OpenSSH Host matching: any positive pattern matches and no negated one does. */
export function hostMatches(host: string, patterns: readonly string[]): boolean {
  let matched = false
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (matchPattern(host, p.slice(1))) return false
    } else if (matchPattern(host, p)) {
      matched = true
    }
  }
  return matched
}

function first(values: Values, key: string): string | undefined {
  const v = values.get(key)
  return v && v.length > 0 ? v.join(' ') : undefined
}

function yes(v: string | undefined): boolean {
  return v !== undefined && /^(yes|true)$/i.test(v)
}

function strictness(v: string | undefined): StrictHostKeyChecking {
  const s = (v ?? 'yes').toLowerCase()
  if (s === 'no' || s === 'off' || s === 'false') return 'no'
  if (s === 'accept-new') return 'accept-new'
  return 'yes' // 'yes' and 'ask': we cannot ask, so like BatchMode
}

interface Tokens {
  d: string
  u: string
  l: string
  h: string
  n: string
  p: string
  r: string
  k: string
  i: string
}

function expandTokens(s: string, t: Tokens): string {
  return s.replace(/%(.)/g, (whole, c: string) => {
    if (c === '%') return '%'
    if (c === 'C') return createHash('sha1').update(`${t.l}${t.h}${t.p}${t.r}`).digest('hex')
    if (c === 'L') return t.l.split('.')[0]!
    const v = (t as unknown as Record<string, string>)[c]
    if (v === undefined) throw new UsageError(`unsupported token ${whole} in ssh config value "${s}"`)
    return v
  })
}

/** HostName accepts only %h and %%. */
function expandHostName(value: string, original: string): string {
  return value.replace(/%([%h])/g, (_, c: string) => (c === '%' ? '%' : original))
}

function expandPath(raw: string, t: Tokens, home: string): string {
  let s = expandTokens(raw, t)
  if (s === '~') s = home
  else if (s.startsWith('~/')) s = join(home, s.slice(2))
  return s
}

function safeUserName(): string {
  try {
    return userInfo().username
  } catch {
    return 'root'
  }
}
