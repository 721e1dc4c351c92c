// The spellings of a boolean, one list for settings, query parameters and provider files.

export const BOOLEAN_SPELLINGS = ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'] as const

/** The boolean spellings the API and settings accept: true,false,1,0,yes,no,on,off. */
export function parseBoolean(v: string): boolean | undefined {
  switch (v.toLowerCase()) {
    case 'true': case '1': case 'yes': case 'on': return true
    case 'false': case '0': case 'no': case 'off': return false
    default: return undefined
  }
}
