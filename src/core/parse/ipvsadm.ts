// Parser for ipvsadm output: the listings (`-Ln`, `--stats`, `--rate`, `--thresholds`, `--persistent-conn`,
// `--tun-info`) and the save form (`-Sn`). Every variant lands in one model: virtual servers holding real servers.
// Formats follow ipvsadm 1.31 (node-state.md A.10). Lines are split on whitespace, never by column, because long
// IPv6 addresses push the columns right and pastes often lose the trailing padding.
// Split by concern: ipvsadm/model.ts, detect.ts, listing.ts, save.ts (the -Sn form), values.ts; this module parses
// any variant and re-exports the model.
import {ordered, orderedAll} from './key-order.js'
import {EXPECTED, detect} from './ipvsadm/detect.js'
import type {Leniency} from './ipvsadm/leniency.js'
import {parseListing} from './ipvsadm/listing.js'
import {type IpvsFormat, type IpvsTable, RS_KEYS, VS_KEYS} from './ipvsadm/model.js'
import {parseSave} from './ipvsadm/save.js'
import {splitInputLines} from './sniff.js'

export * from './ipvsadm/model.js'


/**
 * Which ipvsadm variant `text` is. Throws ParseError when it is none of them (naming what it looks like), or when
 * it is an ipvsadm output node-doctor does not read (`-c` connections, `--timeout`, `--daemon`).
 */
export function detectIpvsFormat(text: string): IpvsFormat {
  return detect(splitInputLines(text, EXPECTED), text).format
}

/**
 * Parses any supported ipvsadm variant. Throws ParseError(detail, line) on anything it cannot read. `lenient` is
 * for pasted input only (ipvsadm/pasted.ts): names instead of numbers, header lines cut off.
 */
export function parseIpvsadm(text: string, lenient?: Leniency): IpvsTable {
  const lines = splitInputLines(text, EXPECTED)
  const {format, bodyStart, version, size} = detect(lines, text, lenient)
  const table: IpvsTable = {format, virtualServers: []}
  if (version !== undefined) table.version = version
  if (size !== undefined) table.connectionTableSize = size
  if (format === 'save') parseSave(lines, table)
  else parseListing(lines.slice(bodyStart), format, table, lenient)
  table.virtualServers = table.virtualServers.map((vs) => ordered({...vs, realServers: orderedAll(vs.realServers, RS_KEYS)}, VS_KEYS))
  return table
}
