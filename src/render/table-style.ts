// Shared by the human views: the apiVersion of their machine-readable forms, and cli-table3's borderless style.

export const VIEW_API_VERSION = 'node-doctor.io/v1alpha1'

/** cli-table3 `chars` for a borderless table whose columns are separated by two spaces (kubectl's look). */
export const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
} as const
