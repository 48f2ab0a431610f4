// Is an artifact what its command prints? A cheap, linear check run on every artifact as it is collected and as
// it is read back from a bundle: binary garbage (NUL bytes, undecodable bytes) is never usable, and the iptables
// dumps must follow iptables-save's line grammar and end every table with COMMIT (a dump cut mid-table would
// otherwise be read as a node with fewer rules). A required artifact that fails is a collection error: a CI gate
// must not pass on a node it could not read.

import {jsonDepthExceeds, yamlDepthExceeds} from '../limits/json.js'
import {limits} from '../limits/limits.js'

/** Artifacts that are YAML or JSON documents: their nesting is bounded before any parser sees them. */
const YAML_DOCUMENTS = new Set(['kubelet-config', 'kubelet-dropins'])
const JSON_DOCUMENTS = new Set(['ip-addr', 'ip-link'])

const IPTABLES_DUMPS = new Set(['iptables-save', 'ip6tables-save', 'iptables-legacy-save', 'iptables-nft-save'])
// *table | :CHAIN POLICY [p:b] | -A/-I/-N/-P/-X/-F ... | COMMIT | # comment | blank
const IPTABLES_LINE = /^(?:\*[A-Za-z0-9_-]+|:[^\s]+ [^\s]+(?: \[\d+:\d+\])?|-[AINPXFRDZ] .*|-[NXFZ]|COMMIT|#.*|\s*)$/

/** Why `text` is not a usable `id` artifact, or undefined when it looks right. */
export function artifactShapeProblem(id: string, text: string): string | undefined {
  if (text.includes('\u0000')) return 'the output is binary (it contains NUL bytes), not the text this command prints'
  let bad = 0
  for (let i = text.indexOf('\ufffd'); i >= 0 && bad <= 16; i = text.indexOf('\ufffd', i + 1)) bad++
  if (bad > 16) return 'the output is not UTF-8 text (undecodable bytes)'
  if (IPTABLES_DUMPS.has(id)) return iptablesDumpProblem(text)
  const depth = limits().documentDepth
  if ((YAML_DOCUMENTS.has(id) && yamlDepthExceeds(text, depth)) || (JSON_DOCUMENTS.has(id) && jsonDepthExceeds(text, depth))) {
    return `the document is nested more than ${depth} levels deep (NODE_DOCTOR_MAX_DOCUMENT_DEPTH)`
  }
  return undefined
}

function iptablesDumpProblem(text: string): string | undefined {
  let inTable: string | undefined
  let lineNo = 0
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end < 0) end = text.length
    const line = text.slice(start, end)
    start = end + 1
    lineNo++
    if (line === '' && end === text.length) break
    if (!IPTABLES_LINE.test(line)) return `line ${lineNo} is not iptables-save output: ${JSON.stringify(line.slice(0, 60))}`
    if (line.startsWith('*')) {
      if (inTable !== undefined) return `line ${lineNo}: table ${line.slice(1)} starts before ${inTable} ended with COMMIT`
      inTable = line.slice(1)
    } else if (line === 'COMMIT') {
      if (inTable === undefined) return `line ${lineNo}: COMMIT outside a table`
      inTable = undefined
    } else if ((line.startsWith(':') || line.startsWith('-')) && inTable === undefined) return `line ${lineNo}: a rule outside a table`
  }
  if (inTable !== undefined) return `table ${inTable} has no COMMIT: the dump was cut`
  return undefined
}
