// Pasted component configurations (`kube-proxy show` / `kubelet show --from-file`): a ConfigMap cut off before its
// kind:/metadata: lines (only its `config.conf: |` data block, or just the block's content), and a configuration
// fragment without apiVersion/kind (a few known fields). readPastedComponentConfig turns such text into one the
// strict readers recognise, keeping every line at the user's line number (dropped prompt/fence lines and the
// lines around the data block become blank lines; apiVersion/kind are appended after the user's last line), and
// says what it assumed. Pure; only used when the input is not recognised as it is.
import {isMap, isScalar, parseDocument} from 'yaml'
import {normalisePasted, type PastedWarning} from './pasted.js'

export interface ComponentSpec {
  /** `kube-proxy` or `kubelet`, for the warnings. */
  component: string
  kind: string
  apiVersion: string
  /** Top-level fields of the configuration (its schema's keys). */
  fields: readonly string[]
  /** ConfigMap data keys the configuration is stored under. */
  configMapKeys: readonly string[]
}

export interface PastedConfig {
  /** The text to read instead: the user's line numbers are kept. */
  text: string
  warnings: PastedWarning[]
}

/** The text as a `kind` configuration the strict reader recognises, or null when it does not look like one. */
export function readPastedComponentConfig(input: string, spec: ComponentSpec): PastedConfig | null {
  if (input.includes('\0')) return null
  const norm = normalisePasted(input)
  const warnings = [...norm.warnings]
  const userLines = input.replace(/\r+\n/g, '\n').split('\n').length
  // The normalised lines put back at the user's line numbers; what was dropped is blank.
  const lines: string[] = new Array<string>(userLines).fill('')
  const normLines = norm.text.split('\n')
  norm.lineOf.forEach((user, i) => {
    lines[user - 1] = normLines[i] ?? ''
  })

  const block = dataBlock(lines, spec.configMapKeys)
  let body = lines
  if (block) {
    body = lines.map((l, i) => (i > block.keyLine && i <= block.last && l.trim() !== '' ? l.slice(block.indent) : ''))
    warnings.push({
      line: block.keyLine + 1,
      message: `${spec.component} ConfigMap without its kind:/metadata: lines (cut off): the \`${block.key}\` data block read as the ${spec.kind}`,
    })
  }
  let root: unknown
  try {
    const doc = parseDocument(body.join('\n'))
    if (doc.errors.length > 0) return null
    root = doc.contents
  } catch {
    return null
  }
  if (!isMap(root)) return null
  const keys = root.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')).filter((k) => k !== '')
  const has = (k: string): boolean => keys.includes(k)
  const fields = keys.filter((k) => k !== 'apiVersion' && k !== 'kind')
  const known = fields.filter((k) => spec.fields.includes(k))
  const kindValue = root.items.find((p) => isScalar(p.key) && p.key.value === 'kind')?.value
  const kind = isScalar(kindValue) ? String(kindValue.value) : undefined
  if (kind !== undefined && kind !== spec.kind) return null
  if (known.length === 0 || fields.length - known.length > known.length) return null
  const add: string[] = []
  if (!has('apiVersion')) add.push(`apiVersion: ${spec.apiVersion}`)
  if (!has('kind')) add.push(`kind: ${spec.kind}`)
  if (add.length > 0) {
    const first = body.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#'))
    warnings.push({
      line: first + 1,
      message: `no ${add.map((a) => a.split(':')[0]).join('/')}: assumed a ${spec.kind} (${spec.apiVersion}) from the fields ${known.slice(0, 4).join(', ')}${known.length > 4 ? ', …' : ''}`,
    })
  }
  if (!block && add.length === 0 && norm.warnings.length === 0) return null
  const text = [...body, ...add].join('\n') + '\n'
  return {text, warnings: warnings.sort((a, b) => a.line - b.line)}
}

/** A `KEY: |` (or `>`) line for one of the ConfigMap keys and the extent of its block. */
function dataBlock(lines: readonly string[], keys: readonly string[]): {key: string; keyLine: number; last: number; indent: number} | null {
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)["']?([\w.-]+)["']?\s*:\s*[|>][-+]?\d*\s*$/.exec(lines[i] as string)
    if (!m || !keys.includes(m[2] as string)) continue
    const keyIndent = (m[1] as string).length
    let last = i
    let indent = -1
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j] as string
      if (l.trim() === '') continue
      const ind = /^ */.exec(l)?.[0].length ?? 0
      if (ind <= keyIndent) break
      if (indent < 0 || ind < indent) indent = ind
      last = j
    }
    if (indent < 0) continue
    return {key: m[2] as string, keyLine: i, last, indent}
  }
  return null
}

/** Whether `text` does not load as YAML (a pasted prompt or fence line breaks it): the pasted reader may mend it. */
export function isMalformedYaml(text: string): boolean {
  try {
    return parseDocument(text).errors.length > 0
  } catch {
    return true
  }
}
