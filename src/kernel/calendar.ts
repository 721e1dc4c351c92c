// Whether a date or date-time names a moment that exists. JavaScript's Date.parse reads
// `2030-02-31` as the 3rd of March instead of refusing it, so every date Gatehouse takes in
// (documents' date-times, a credential's expiry, a provider file's `updatedAt`) is checked here
// before it is parsed: a day past the end of its month would otherwise be stored as given, or
// quietly moved to another day.

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const leapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/**
 * Whether text that starts `YYYY-MM-DD` (and may go on `THH:MM[:SS]`) names a real day of a
 * real month and, when a time follows, a time of day without a leap second. The rest of the
 * syntax (separators, fractions, zones) is the caller's pattern to check.
 */
export function isRealMoment(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text)
  if (!m) return false
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (month < 1 || month > 12 || day < 1) return false
  if (day > (month === 2 && leapYear(year) ? 29 : DAYS_IN_MONTH[month - 1])) return false
  if (m[4] === undefined) return true
  return Number(m[4]) <= 23 && Number(m[5]) <= 59 && (m[6] === undefined || Number(m[6]) <= 59)
}
