// Word lists the demo generator draws from. Small on purpose: variety comes from combining them.
import type { Random } from './prng.js'

export const FIRST_NAMES = [
  'Ada', 'Ben', 'Chloe', 'Dmitri', 'Elena', 'Farah', 'Gustav', 'Hana', 'Ivan', 'Jonas', 'Keiko', 'Liam',
  'Maya', 'Noah', 'Olga', 'Priya', 'Quinn', 'Rosa', 'Sami', 'Tomas', 'Uma', 'Victor', 'Wen', 'Yara', 'Zoe',
] as const

export const LAST_NAMES = [
  'Andersen', 'Brooks', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Hughes', 'Ito', 'Jensen', 'Kowalski',
  'Larsen', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Quinn', 'Rossi', 'Silva', 'Tanaka', 'Umar', 'Varga',
  'Weber', 'Yilmaz', 'Zhang',
] as const

export const ADJECTIVES = [
  'Classic', 'Bold', 'Quiet', 'Bright', 'Urban', 'Rustic', 'Modern', 'Vintage', 'Sturdy', 'Light', 'Soft',
  'Compact', 'Essential', 'Premium', 'Everyday', 'Coastal', 'Alpine', 'Midnight', 'Golden', 'Recycled',
] as const

export const NOUNS = [
  'Backpack', 'Mug', 'Notebook', 'Jacket', 'Lamp', 'Scarf', 'Bottle', 'Chair', 'Blanket', 'Candle', 'Tote',
  'Hoodie', 'Poster', 'Planter', 'Wallet', 'Cap', 'Journal', 'Speaker', 'Apron', 'Sneaker',
] as const

export const TOPICS = [
  'design', 'release', 'community', 'performance', 'security', 'roadmap', 'tutorial', 'interview', 'event',
  'sustainability', 'pricing', 'integration', 'migration', 'accessibility', 'search', 'analytics',
] as const

const LOREM = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore ' +
  'magna aliqua ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo ' +
  'consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint ' +
  'occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum'
).split(' ')

export const PLACES = [
  { countryCode: 'US', administrativeArea: 'CA', locality: 'San Francisco', postalCode: '94103' },
  { countryCode: 'US', administrativeArea: 'NY', locality: 'New York', postalCode: '10001' },
  { countryCode: 'GB', administrativeArea: null, locality: 'London', postalCode: 'EC1A 1BB' },
  { countryCode: 'DE', administrativeArea: 'BE', locality: 'Berlin', postalCode: '10115' },
  { countryCode: 'FR', administrativeArea: null, locality: 'Lyon', postalCode: '69001' },
  { countryCode: 'NL', administrativeArea: null, locality: 'Utrecht', postalCode: '3511' },
  { countryCode: 'JP', administrativeArea: '13', locality: 'Tokyo', postalCode: '100-0001' },
  { countryCode: 'CA', administrativeArea: 'ON', locality: 'Toronto', postalCode: 'M5H 2N2' },
  { countryCode: 'AU', administrativeArea: 'NSW', locality: 'Sydney', postalCode: '2000' },
  { countryCode: 'BR', administrativeArea: 'SP', locality: 'São Paulo', postalCode: '01001-000' },
] as const

export const STREETS = ['Main St', 'Oak Avenue', 'Harbour Road', 'Station Square', 'Mill Lane', 'Park Row', 'King Street']

export function words(random: Random, min: number, max: number): string {
  const n = random.int(min, max)
  const out: string[] = []
  for (let i = 0; i < n; i++) out.push(random.pick(LOREM))
  return out.join(' ')
}

export function sentence(random: Random, min = 6, max = 14): string {
  const text = words(random, min, max)
  return text.charAt(0).toUpperCase() + text.slice(1) + '.'
}

export function paragraph(random: Random, sentences = 4): string {
  return Array.from({ length: sentences }, () => sentence(random)).join(' ')
}

export function titleCase(text: string): string {
  return text.replace(/\b\w/g, (c) => c.toUpperCase())
}

export function slugify(text: string): string {
  return text.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().toLowerCase().replace(/[\s_-]+/g, '-').replace(/^-+|-+$/g, '')
}

const VERBS = ['improve', 'rethink', 'measure', 'simplify', 'scale', 'automate', 'secure', 'speed up'] as const
const SUBJECTS = [
  'product search', 'checkout performance', 'our design system', 'inventory sync', 'content modelling',
  'webhook delivery', 'accessibility audits', 'release planning', 'customer onboarding', 'catalog imports',
  'sustainable packaging', 'localization', 'API versioning', 'image delivery', 'order tracking', 'gift cards',
] as const

/** A plausible headline: "How we simplify inventory sync", "5 ways to secure webhook delivery". */
export function headline(random: Random): string {
  const subject = random.pick(SUBJECTS)
  const verb = random.pick(VERBS)
  const text = random.pick([
    () => `How we ${verb} ${subject}`,
    () => `${random.int(3, 12)} ways to ${verb} ${subject}`,
    () => `What's new in ${subject}`,
    () => `A practical guide to ${subject}`,
    () => `${subject}: lessons from ${random.pick(PLACES).locality}`,
    () => `Behind the scenes: ${subject}`,
    () => `Why ${subject} matters in ${2020 + random.int(0, 6)}`,
  ])()
  return text.charAt(0).toUpperCase() + text.slice(1)
}
