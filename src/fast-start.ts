// Start-up fast path (issue #15 item 7). `kubectl node-doctor`, `kubectl node-doctor --help` and `--version` print
// only what package.json and oclif.manifest.json hold, yet loading @oclif/core to print them costs more than Node's
// own start (its module code, then its config: plugins, theme, hooks). Here the entry point (bin/, the release
// runner) answers them from those two files and prints, byte for byte, what oclif with src/help.ts prints;
// test/unit/fast-start.test.ts compares the two at many terminal widths, with and without colour.
//
// It answers only when it is sure. Anything oclif would read or do that this file does not reproduce (another argv,
// a user theme or user plugins, oclif's debug output, an oclif setting in package.json it does not know, a text
// that needs templating, Unicode width or hard wrapping) makes it answer nothing, and the caller runs oclif.
// The layout rules below are oclif 4's help layout as observed (its Help/RootHelp/HelpFormatter classes):
// sections, a two-column list that turns into a one-column list when a description needs more than five lines,
// greedy word wrap to the terminal width.
import {existsSync, readFileSync} from 'node:fs'
import {arch as osArch, homedir, platform as osPlatform, release as osRelease, tmpdir} from 'node:os'
import {join} from 'node:path'
import {exitCodeHelp} from './exit-codes.js'
import {terminalSafe} from './render/terminal-safe.js'

/** The parts of package.json the fast path reads. */
export interface FastPackageJson {
  name?: unknown
  version?: unknown
  description?: unknown
  oclif?: Record<string, unknown>
}

/** The parts of oclif.manifest.json the fast path reads. */
export interface FastManifest {
  version?: unknown
  commands?: Record<string, {id?: unknown; summary?: unknown; description?: unknown; hidden?: unknown; aliases?: unknown; hiddenAliases?: unknown}>
}

export interface FastStartInput {
  argv: readonly string[]
  pjson: FastPackageJson
  manifest: FastManifest
  /** oclif's user agent parts: platform (after oclif's WSL check), architecture, `process.version`. */
  platform: string
  arch: string
  nodeVersion: string
  /** The help width oclif would use (OCLIF_COLUMNS, else the terminal's, else 80). */
  width: number
  /** Section headers: bold when oclif would colour, identity otherwise. */
  header: (text: string) => string
}

/** The package.json `oclif` keys whose meaning this file reproduces; any other key means "ask oclif". */
const KNOWN_OCLIF_KEYS = new Set(['bin', 'dirname', 'commands', 'topicSeparator', 'helpClass', 'topics', 'hooks'])
/**
 * Hooks that never run for the bare command, --help or --version: oclif runs `command_not_found` only when a command
 * id is not found (src/hooks/command-not-found.ts). Any other hook (`init`, `prerun`, ...) could print or change
 * something, so it means "ask oclif".
 */
const QUIET_HOOKS = new Set(['command_not_found'])

/** What the request is, from argv alone: root help, the version, or something only oclif answers. */
export function fastRequest(argv: readonly string[]): 'help' | 'version' | undefined {
  if (argv.length === 0 || (argv.length === 1 && argv[0] === '--help')) return 'help'
  if (argv.length === 1 && argv[0] === '--version') return 'version'
  return undefined
}

/**
 * What oclif would print to stdout for `input.argv`, or undefined when this file cannot be sure of it. Pure.
 */
export function fastStartOutput(input: FastStartInput): string | undefined {
  const request = fastRequest(input.argv)
  if (!request) return undefined
  const {pjson, manifest} = input
  if (typeof pjson.name !== 'string' || typeof pjson.version !== 'string' || !isRecord(pjson.oclif)) return undefined
  if (Object.keys(pjson.oclif).some((k) => !KNOWN_OCLIF_KEYS.has(k))) return undefined
  if (pjson.oclif.hooks !== undefined && (!isRecord(pjson.oclif.hooks) || Object.keys(pjson.oclif.hooks).some((h) => !QUIET_HOOKS.has(h)))) return undefined
  if (pjson.oclif.topicSeparator !== ' ' || typeof pjson.oclif.commands !== 'string') return undefined
  const userAgent = `${pjson.name}/${pjson.version} ${input.platform}-${input.arch} node-${input.nodeVersion}`
  if (request === 'version') return `${userAgent}\n`

  // oclif reads the manifest only when its version is the package's (otherwise it loads every command file).
  if (typeof manifest.version !== 'string' || manifest.version.split('-')[0] !== pjson.version.split('-')[0]) return undefined
  if (!isRecord(manifest.commands)) return undefined
  const bin = typeof pjson.oclif.bin === 'string' ? pjson.oclif.bin : pjson.name
  const description = typeof pjson.description === 'string' ? pjson.description : ''
  const model = rootModel(pjson.oclif.topics, manifest.commands)
  if (!model) return undefined
  const wrapped = [bin, description, userAgent, ...model.topics.flat(), ...model.commands.flat()]
  if (!wrapped.every(wrappable) || !printable(exitCodeHelp())) return undefined

  const layout = new Layout(input.width, input.header)
  const [summary, ...more] = description.split('\n')
  const root = [
    summary,
    layout.section('VERSION', layout.wrap(userAgent, 2)),
    layout.section('USAGE', layout.wrap(`$ ${bin} [COMMAND]`, 2)),
    more.join('\n') !== '' ? layout.section('DESCRIPTION', layout.wrap(more.join('\n'), 2)) : '',
  ].filter((s) => s !== '')
  const out = [`${root.join('\n\n')}\n\n${layout.section('EXIT CODES', exitCodeHelp())}`, '']
  if (model.topics.length > 0) out.push(layout.section('TOPICS', layout.list(model.topics)), '')
  if (model.commands.length > 0) out.push(layout.section('COMMANDS', layout.list(model.commands)), '')
  if (layout.failed) return undefined
  return out.map((line) => `${line}\n`).join('')
}

/** Root help's two lists, [name, first line of its description], sorted; undefined for what oclif does not show plainly. */
function rootModel(pjsonTopics: unknown, commands: NonNullable<FastManifest['commands']>): {topics: string[][]; commands: string[][]} | undefined {
  const topics = new Map<string, string>()
  if (pjsonTopics !== undefined) {
    if (!isRecord(pjsonTopics)) return undefined
    for (const [name, topic] of Object.entries(pjsonTopics)) {
      // Nested or hidden topics, and descriptions that are not text, are oclif's to show.
      if (!isRecord(topic) || Object.keys(topic).some((k) => k !== 'description') || typeof topic.description !== 'string') return undefined
      topics.set(name, topic.description)
    }
  }
  const shown: Array<{id: string; text: string}> = []
  for (const [key, c] of Object.entries(commands)) {
    if (!isRecord(c) || c.id !== key || key.includes(' ')) return undefined
    if ((Array.isArray(c.aliases) && c.aliases.length > 0) || (Array.isArray(c.hiddenAliases) && c.hiddenAliases.length > 0)) return undefined
    const summary = typeof c.summary === 'string' ? c.summary : ''
    const description = typeof c.description === 'string' ? c.description : ''
    if (c.hidden === true) continue
    if (c.hidden !== undefined && c.hidden !== false) return undefined
    // A command's summary, else the first line of its description.
    const text = summary !== '' ? summary.split('\n')[0]! : description.split('\n')[0]!
    shown.push({id: key, text})
    // Every prefix of a shown command's id is a topic too, described by that command unless the package names it.
    const parts = key.split(':')
    for (let n = parts.length; n > 0; n--) {
      const name = parts.slice(0, n).join(':')
      if (!topics.has(name)) topics.set(name, summary !== '' ? summary : description)
    }
  }
  const names = [...topics.keys()]
  // oclif lists a topic when another topic's name contains `name:` (a topic with something under it).
  const rootTopics = names
    .filter((name) => !name.includes(':') && names.some((other) => other.includes(`${name}:`)))
    .sort(byCodeUnits)
    .map((name) => [name, topics.get(name)!.split('\n')[0]!])
  const rootCommands = shown
    .filter((c) => !c.id.includes(':'))
    .sort((a, b) => byCodeUnits(a.id, b.id))
    .map((c) => [c.id, c.text])
  return {topics: rootTopics, commands: rootCommands}
}

/**
 * Text printed as oclif prints it: printable ASCII (one column per character, nothing for the terminal guard to
 * change) with no `<%` (oclif renders every help text as an EJS template).
 */
function printable(text: string): boolean {
  return /^[\x20-\x7e\n]*$/.test(text) && !text.includes('<%')
}

/** Printable text that also wraps as oclif wraps it: single spaces between words, none at a line's ends. */
function wrappable(text: string): boolean {
  return printable(text) && !/ {2}|^ | $/m.test(text)
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** oclif's help layout for plain text (see wrappable) at one width. `failed` when a word would need breaking. */
class Layout {
  failed = false
  constructor(
    private readonly width: number,
    private readonly header: (text: string) => string,
  ) {}

  section(title: string, body: string): string {
    return `${this.header(title)}\n${indent(body, 2)}`
  }

  /** Greedy word wrap of each line to `width - spacing` columns. */
  wrap(text: string, spacing: number): string {
    const columns = this.width - spacing
    return text
      .split('\n')
      .map((line) => {
        const rows: string[] = []
        let row = ''
        for (const word of line.split(' ')) {
          if (word.length > columns) this.failed = true // oclif breaks such a word: not reproduced here
          if (row === '') row = word
          else if (row.length + 1 + word.length <= columns) row += ` ${word}`
          else {
            rows.push(row)
            row = word
          }
        }
        rows.push(row)
        return rows.join('\n')
      })
      .join('\n')
  }

  /**
   * Two columns, names padded to the widest plus two; a description wraps under itself. When any description
   * needs more than five lines, the whole list is one column instead: name, then its description indented by 4.
   */
  list(rows: string[][]): string {
    const nameWidth = Math.max(...rows.map(([name]) => name!.length))
    const twoColumns: string[] = []
    for (const [name, text] of rows) {
      if (!text) {
        twoColumns.push(name!)
        continue
      }
      const [first, ...rest] = this.wrap(text, 2 + nameWidth + 2).split('\n')
      if (rest.length > 4) return this.oneColumn(rows)
      let entry = `${name}${' '.repeat(nameWidth - name!.length + 2)}${first}`
      if (rest.length > 0) entry += `\n${indent(rest.join('\n'), nameWidth + 2)}`
      twoColumns.push(entry)
    }
    return twoColumns.join('\n')
  }

  private oneColumn(rows: string[][]): string {
    return rows
      .map(([name, text]) => `${this.wrap(name!, 2)}${text ? `\n${indent(this.wrap(text, 4), 4)}` : ''}`)
      .join('\n\n')
  }
}

/** Each line that is not blank, indented by `spaces`. */
function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces)
  return text
    .split('\n')
    .map((line) => (/^\s*$/.test(line) ? line : pad + line))
    .join('\n')
}

// ---- The process boundary: what oclif would read from the environment, and the write. ----

/** oclif's help width: OCLIF_COLUMNS when it is a number, else the terminal's (at least 40), else 80. */
export function oclifWidth(env: NodeJS.ProcessEnv, stdout: {isTTY?: boolean; getWindowSize?: () => number[]}): number {
  const columns = Number.parseInt(env.OCLIF_COLUMNS ?? '', 10)
  if (columns) return columns
  if (!stdout.isTTY || !stdout.getWindowSize) return 80
  const width = stdout.getWindowSize()[0] ?? 0
  return width < 1 ? 80 : Math.max(width, 40)
}

/**
 * The environment oclif would act on in ways this file does not reproduce: its debug output, its own settings
 * (OCLIF_*, the scoped `KUBECTL NODE_DOCTOR_*` variables), a theme or user plugins in its config/data folders.
 */
function oclifWouldDiffer(env: NodeJS.ProcessEnv, pjson: FastPackageJson): boolean {
  if (env.DEBUG !== undefined) return true
  const bin = typeof pjson.oclif?.bin === 'string' ? pjson.oclif.bin : String(pjson.name)
  const scope = `${bin.replaceAll('@', '').replaceAll(/[/-]/g, '_').toUpperCase()}_`
  if (Object.keys(env).some((k) => (k.startsWith('OCLIF_') && k !== 'OCLIF_COLUMNS') || k.startsWith(scope))) return true
  const dirname = typeof pjson.oclif?.dirname === 'string' ? pjson.oclif.dirname : String(pjson.name)
  const home = env.HOME || homedir() || tmpdir()
  const configDir = join(env.XDG_CONFIG_HOME || join(home, '.config'), dirname)
  const dataDir = join(env.XDG_DATA_HOME || join(home, '.local/share'), dirname)
  return existsSync(join(configDir, 'theme.json')) || existsSync(join(dataDir, 'package.json'))
}

/** The platform oclif names, or undefined where it would need its own check (Windows, WSL). */
function oclifPlatform(): string | undefined {
  const platform = osPlatform()
  if (platform === 'win32') return undefined
  if (platform !== 'linux') return platform
  // oclif says `wsl` under WSL: leave any Microsoft kernel to it.
  if (osRelease().toLowerCase().includes('microsoft')) return undefined
  try {
    if (readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft')) return undefined
  } catch {
    // no /proc/version: not WSL
  }
  return platform
}

/**
 * Section-header styling as oclif's help would do it: bold only when its colour checks (supports-color on stdout
 * and stderr, then ansis) say so. Off a terminal and without FORCE_COLOR both say no without being asked; otherwise
 * the same two modules oclif uses are asked (they are @oclif/core's dependencies); undefined when they cannot be.
 */
async function oclifHeaderStyle(env: NodeJS.ProcessEnv): Promise<((text: string) => string) | undefined> {
  const identity = (text: string) => text
  if (!('FORCE_COLOR' in env) && (!process.stdout.isTTY || !process.stderr.isTTY)) return identity
  try {
    // @ts-expect-error supports-color 8 ships no types; it exports {stdout, stderr}: false or a level object.
    const supports = (await import('supports-color')) as {default: {stdout: unknown; stderr: unknown}}
    if (!supports.default.stdout || !supports.default.stderr) return identity
    const ansis = (await import('ansis')).default
    return (text: string) => ansis.bold(text)
  } catch {
    return undefined
  }
}

/**
 * Answers `argv` without oclif when it can: writes what oclif would write and returns true; otherwise writes
 * nothing and returns false (the caller runs oclif). `root` is the folder holding package.json and
 * oclif.manifest.json.
 */
export async function fastStart(root: URL, argv: readonly string[] = process.argv.slice(2)): Promise<boolean> {
  const request = fastRequest(argv)
  if (!request) return false
  try {
    const pjson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as FastPackageJson
    if (oclifWouldDiffer(process.env, pjson)) return false
    const platform = oclifPlatform()
    if (!platform) return false
    const manifest = request === 'help' ? (JSON.parse(readFileSync(new URL('oclif.manifest.json', root), 'utf8')) as FastManifest) : {}
    const header = request === 'help' ? await oclifHeaderStyle(process.env) : (text: string) => text
    if (!header) return false
    const arch = osArch() === 'ia32' ? 'x86' : osArch()
    const width = oclifWidth(process.env, process.stdout)
    const text = fastStartOutput({argv, pjson, manifest, platform, arch, nodeVersion: process.version, width, header})
    if (text === undefined) return false
    process.stdout.write(terminalSafe(text, {tty: Boolean(process.stdout.isTTY)}))
    return true
  } catch {
    return false // a file missing or unreadable: oclif says what is wrong
  }
}
