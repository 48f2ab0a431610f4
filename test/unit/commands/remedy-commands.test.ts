// Every node-doctor command that a remedy, explain text, hint, error or help example names must parse against the
// real command tree (issue #18 item 6). The commands are found two ways:
//   - in the source: every `kubectl node-doctor ...` inside a string (up to its closing quote or backquote) in
//     src/**, and every `<%= config.bin %> ...` example of a command class;
//   - at run time: every string field of every catalog entry (remedies built from constants are covered too).
// Each is split into words, its command id found by the longest prefix naming a command class in src/commands, and
// the rest parsed by oclif's own parser with that class's flags, args and strictness. Placeholders (NODE, ID,
// FIELD=VALUE) are ordinary values; a `${...}` in a template literal becomes the first allowed value of its flag (or
// a plain word). A template in the command position cannot be checked statically and is listed, not parsed.
// A second test catches hints that name a flag alone ("Pass a key with --identity"): every `--flag` in the
// non-core source must be a flag of some command, or one of the other tools' flags listed below with their tool.
import assert from 'node:assert/strict'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, it} from 'node:test'
import {Parser} from '@oclif/core'
import {CATALOG} from '../../../src/core/checks/registry.js'
import {REPO_ROOT} from '../../support/golden.js'

const SRC = join(REPO_ROOT, 'src')
const COMMANDS = join(SRC, 'commands')

interface CommandClass {
  flags?: Record<string, {type: 'boolean' | 'option'; char?: string; options?: readonly string[]; allowNo?: boolean}>
  args?: Record<string, unknown>
  strict?: boolean
}

function files(dir: string, re: RegExp): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e)
      return statSync(p).isDirectory() ? files(p, re) : re.test(e) ? [p] : []
    })
}

/** Command id (`fix kubelet`) → its class, loaded from src/commands as oclif loads dist/commands. */
async function commandTree(): Promise<Map<string, CommandClass>> {
  const tree = new Map<string, CommandClass>()
  for (const f of files(COMMANDS, /\.tsx?$/)) {
    const id = relative(COMMANDS, f).replace(/\.tsx?$/, '').split('/').join(' ')
    const mod = (await import(pathToFileURL(f).href)) as {default?: CommandClass}
    if (mod.default) tree.set(id, mod.default)
  }
  return tree
}

interface Mention {
  /** The command line after `kubectl node-doctor`. */
  line: string
  where: string
}

const TEMPLATE = '\u0000'

/**
 * The text after `start` up to the end of the string it is in: the next `close` (the quote or backquote that opened
 * it; a backslash before it does not matter: `\`` closes a Markdown span inside a template literal), or a line end.
 * A `${...}` is skipped whole and marked; a shell comment (`  # ...`) after the command is dropped.
 */
function readCommand(text: string, start: number, close: string | undefined): string {
  let out = ''
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!
    if (ch === close || ch === '\n') break
    if (ch === '\\') {
      if (text[i + 1] === 'n') break
      continue
    }
    if (ch === '$' && text[i + 1] === '{') {
      let depth = 0
      for (; i < text.length; i++) {
        if (text[i] === '{') depth++
        else if (text[i] === '}' && --depth === 0) break
      }
      out += TEMPLATE
      continue
    }
    out += ch
  }
  return out.replace(/\s+#\s.*$/, '').trim()
}

/** The quote or backquote nearest before `index`: the one that opened the string (or Markdown span) a command is in. */
function opener(text: string, index: number): string | undefined {
  for (let i = index - 1; i >= 0; i--) if (text[i] === '`' || text[i] === "'" || text[i] === '"') return text[i]
  return undefined
}

function sourceMentions(): Mention[] {
  const out: Mention[] = []
  for (const f of files(SRC, /\.tsx?$/)) {
    const text = readFileSync(f, 'utf8')
    const lines = text.split('\n')
    lines.forEach((l, n) => {
      // Comments describe commands, they do not tell a user to run them.
      if (/^\s*(\/\/|\*|\/\*)/.test(l)) return
      for (const m of l.matchAll(/kubectl node-doctor |<%= config\.bin %> /g)) {
        out.push({line: readCommand(l, m.index + m[0].length, opener(l, m.index)), where: `${relative(REPO_ROOT, f)}:${n + 1}`})
      }
    })
  }
  return out
}

function catalogMentions(): Mention[] {
  const out: Mention[] = []
  const visit = (value: unknown, where: string): void => {
    if (typeof value === 'string') {
      for (const m of value.matchAll(/kubectl node-doctor /g)) out.push({line: readCommand(value, m.index + m[0].length, opener(value, m.index) === '`' ? '`' : undefined), where})
    } else if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${where}[${i}]`))
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, `${where}.${k}`)
  }
  for (const spec of CATALOG) visit(spec, `catalog ${spec.id}`)
  return out
}

/** Words of a command line, as a shell splits them (quotes kept together, placeholders of templates marked). */
function words(line: string): string[] {
  return [...line.matchAll(/'[^']*'|"[^"]*"|\S+/g)].map((m) => m[0].replace(/^['"]|['"]$/g, ''))
}

/** Why the line does not parse, or undefined when it does. */
async function problem(line: string, tree: Map<string, CommandClass>): Promise<string | undefined> {
  const argv = words(line)
  // The command: the longest prefix naming a command class; a computed word (`fix ${component}`) matches any word.
  const fits = (id: string) => id.split(' ').every((w, i) => argv[i] !== undefined && (argv[i] === w || (argv[i]!.includes(TEMPLATE) && new RegExp(`^${argv[i]!.split(TEMPLATE).map(escape).join('.+')}$`).test(w))))
  const ids = [...tree.keys()].filter(fits)
  const longest = Math.max(0, ...ids.map((id) => id.split(' ').length))
  const candidates = ids.filter((id) => id.split(' ').length === longest)
  if (candidates.length === 0) {
    // The root takes only --help and --version.
    if (argv.length > 0 && argv.every((a) => a === '--help' || a === '--version')) return undefined
    return `no command "${argv.slice(0, 2).join(' ')}" (commands: ${[...tree.keys()].join(', ')})`
  }
  let first: string | undefined
  for (const id of candidates) {
    const why = await parseAs(tree.get(id)!, argv.slice(longest))
    if (why === undefined) return undefined
    first ??= `as \`${id}\`: ${why}`
  }
  return first
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** oclif's parser over the words after the command id, with the class's flags, args and strictness. */
async function parseAs(cls: CommandClass, rest: string[]): Promise<string | undefined> {
  // The bare command (`Re-run \`kubectl node-doctor collect\``) names it; its required flags are its help's business.
  if (rest.length === 0) return undefined
  const flags = cls.flags ?? {}
  const byChar = new Map<string, string>(Object.entries(flags).flatMap(([name, f]) => (f.char ? [[`-${f.char}`, name] as [string, string]] : [])))
  const filled = rest.map((w, i) => {
    if (!w.includes(TEMPLATE)) return w
    const prev = rest[i - 1] ?? ''
    const flag = flags[prev.replace(/^--/, '')] ?? flags[byChar.get(prev) ?? '']
    return flag?.options?.[0] ?? w.replaceAll(TEMPLATE, 'X')
  })
  try {
    await Parser.parse(filled, {flags: flags as never, args: (cls.args ?? {}) as never, strict: cls.strict ?? true, context: undefined})
    return undefined
  } catch (err) {
    return (err as Error).message.split('\n').filter((l) => l.trim() !== '' && !/following error occurred/.test(l)).join(' ').trim()
  }
}

describe('remedy commands', () => {
  it('finds the commands it is meant to check (the extraction itself works)', () => {
    const lines = [...sourceMentions(), ...catalogMentions()].map((m) => m.line)
    // A catalog remedy, a UsageError hint and a help example, each read to its closing backquote or quote.
    assert.ok(lines.includes('fix kube-proxy-mode --to nftables'), 'a catalog remedy')
    assert.ok(lines.includes('collect'), "a hint: 'Re-run `kubectl node-doctor collect`.'")
    assert.ok(lines.includes('explain IPT-001'), 'a help example')
    assert.ok(lines.some((l) => l.startsWith(`fix conntrack ${TEMPLATE} --service ${TEMPLATE}`)), 'a template literal')
  })

  it('parses every command a remedy, explain text, hint, error or example names', async () => {
    const tree = await commandTree()
    assert.ok(tree.has('fix kubelet') && tree.has('check'), 'the command tree is loaded from src/commands')
    const mentions = [...sourceMentions(), ...catalogMentions()]
    const bad: string[] = []
    let parsed = 0
    for (const m of mentions) {
      if (m.line === '' || words(m.line)[0]!.startsWith(TEMPLATE)) continue // the whole command is computed: not checkable here
      const why = await problem(m.line, tree)
      parsed++
      if (why !== undefined) bad.push(`${m.where}: \`kubectl node-doctor ${m.line.replaceAll(TEMPLATE, '${…}')}\`: ${why}`)
    }
    assert.ok(parsed > 40, `only ${parsed} commands found`)
    assert.deepEqual(bad, [])
  })

  it('rejects what does not exist (the check is not vacuous)', async () => {
    const tree = await commandTree()
    assert.match((await problem('check NODE --area kubelet', tree)) ?? '', /area/)
    assert.match((await problem('fix kube-proxy-mode --to ipchains', tree)) ?? '', /ipchains/)
    assert.match((await problem('versoin', tree)) ?? '', /no command/)
    assert.equal(await problem('check NODE --only kubelet', tree), undefined)
  })

  it('names only real flags in hints and errors (flags of other tools are listed with their tool)', async () => {
    const tree = await commandTree()
    const ours = new Set([...tree.values()].flatMap((c) => Object.entries(c.flags ?? {}).flatMap(([name, f]) => [name, ...(f.allowNo ? [`no-${name}`] : [])])))
    ours.add('help').add('version') // oclif's own
    const bad: string[] = []
    for (const folder of ['app', 'cli', 'commands', 'transports', 'ui', 'render', 'hooks']) {
      for (const f of files(join(SRC, folder), /\.tsx?$/)) {
        readFileSync(f, 'utf8')
          .split('\n')
          .forEach((l, n) => {
            if (/^\s*(\/\/|\*|\/\*)/.test(l)) return
            for (const m of l.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*[a-z0-9])(?![\w$-])/g)) {
              if (!ours.has(m[1]!) && !OTHER_TOOLS.has(m[1]!)) bad.push(`${relative(REPO_ROOT, f)}:${n + 1}: --${m[1]}`)
            }
          })
      }
    }
    assert.deepEqual(bad, [])
  })
})

/** Flags of the other programs node-doctor's text names (it runs or recommends them), by tool. */
const OTHER_TOOLS = new Set([
  // kube-proxy
  'cleanup',
  'hostname-override',
  'proxy-mode',
  'kube-api-qps',
  // k3s
  'disable-kube-proxy',
  // kubelet
  'config',
  'config-dir',
  // conntrack -D filters
  'orig-dst',
  'orig-port-dst',
  'reply-src',
  'dst-nat',
  // ipvsadm -L options
  'exact',
  'persistent-conn',
  'rate',
  'stats',
  'thresholds',
  'tun-info',
  // kubectl (drain, annotate/label, config view) and kubeconfig
  'ignore-daemonsets',
  'overwrite',
  'minify',
  'tls-server-name',
  // curl, touch
  'max-time',
  'reference',
  // crictl ps (--name: container name regex; cri-tools cmd/crictl/container.go)
  'name',
])
