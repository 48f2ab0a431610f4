// Configuration data as the components read it (JSON values), where each value came from (Origin), and the
// problems found reading it (ConfigIssue). Plain serializable types shared by the parsers and the settings model.

export type JsonValue = null | boolean | number | string | JsonValue[] | {[key: string]: JsonValue}
export type JsonObject = {[key: string]: JsonValue}

/** Where a value came from, lowest to highest precedence for the kubelet: default < file < drop-in < flag. */
export type OriginKind = 'default' | 'file' | 'drop-in' | 'configz' | 'flag'

export interface Origin {
  kind: OriginKind
  /** File name as given by the caller; for flags, the file that put the flag on the command line. */
  source?: string
  /** 1-based line in `source`. */
  line?: number
  /** Flags: the flag as written (`--max-pods=250`). Defaults: where upstream sets it. */
  detail?: string
}

export type IssueSeverity = 'error' | 'warning' | 'info'

/**
 * A problem found while reading configuration. Never thrown: parsers collect them so one run reports all.
 * `error` means the component would refuse the file (or fail validation) at startup.
 */
export interface ConfigIssue {
  severity: IssueSeverity
  code: string
  message: string
  /** JSON Pointer of the field (`/authentication/anonymous/enabled`), when the issue is about one. */
  path?: string
  source?: string
  line?: number
}
