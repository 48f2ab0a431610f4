// The field schema that mirrors how the Go components decode their configuration, and version numbers.
// Field schema


/** Value types as the Go decoder sees them. `quantity` is a string holding a resource quantity. */
export type ScalarType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float'
  | 'duration'
  | 'durationOrNumber'
  | 'quantity'
  | 'quantityOrNumber'
  | 'threshold'
  | 'any'

export type FieldType = ScalarType | {list: FieldType} | {map: FieldType} | {struct: Schema}

export interface FieldSpec {
  type: FieldType
  /** Go pointer field: an explicit zero is kept; only omission/null means "unset". */
  pointer?: boolean
  /** First minor version (1.N) whose schema has the field. */
  since?: number
  /** First minor version that no longer has it. */
  removedIn?: number
  /** Accepted values (checked case-sensitively, as the components do). */
  enum?: readonly string[]
}

export type Schema = {readonly [field: string]: FieldSpec}

// ---------------------------------------------------------------------------------------------------------------
// Versions

/** The minor number of a Kubernetes version (`v1.29.3`, `1.29`, `29`), or undefined when it is not one. */
export function parseMinorVersion(version: string | undefined): number | undefined {
  if (version === undefined) return undefined
  const m = /^v?(?:1\.)?(\d{1,3})(?:\.\d+)?(?:[-+].*)?$/.exec(version.trim())
  if (!m) return undefined
  return Number(m[1])
}
