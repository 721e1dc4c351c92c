// Demo users (with groups) and the addresses they own.
import { type DemoContext, inSlices, isoDays } from './demo-context.js'
import { FIRST_NAMES, LAST_NAMES, PLACES, STREETS } from './words.js'

export interface DemoUser {
  readonly id: number
  readonly username: string
  readonly fullName: string
  readonly email: string
}

const GROUPS = ['customers', 'authors', 'editors', 'vip', 'staff'] as const

export async function seedPeople(ctx: DemoContext, total: number, slice: number): Promise<DemoUser[]> {
  const { random } = ctx
  const users: DemoUser[] = []
  await inSlices(total, slice, async (from, to) => {
    const inputs = []
    for (let i = from; i < to; i++) {
      const first = random.pick(FIRST_NAMES)
      const last = random.pick(LAST_NAMES)
      const username = `${first}.${last}${i + 1}`.toLowerCase()
      const status = random.weighted([['active', 80], ['inactive', 5], ['pending', 5], ['suspended', 4], ['locked', 3], ['credentialed', 3]] as const)
      inputs.push({
        username,
        fullName: `${first} ${last}`,
        email: `${username}@example.com`,
        status,
        groups: random.sample(GROUPS, random.int(1, 2)),
        lastLoginAt: status === 'pending' ? null : isoDays(ctx, -random.int(0, 400)),
      })
    }
    const created = await ctx.create('users', inputs)
    for (const u of created) {
      users.push({ id: u.id as number, username: u.username as string, fullName: u.fullName as string, email: u.email as string })
    }
    await ctx.create('addresses', created.flatMap((u) => addressesFor(ctx, u.id as number, u.fullName as string)))
  })
  return users
}

function addressesFor(ctx: DemoContext, ownerId: number, fullName: string): unknown[] {
  const { random } = ctx
  const n = random.weighted([[0, 2], [1, 4], [2, 3], [3, 1]] as const)
  return random.sample(['Home', 'Work', 'Shipping'], n).map((title) => {
    const place = random.pick(PLACES)
    return {
      ownerId,
      title,
      countryCode: place.countryCode,
      administrativeArea: place.administrativeArea,
      locality: place.locality,
      postalCode: place.postalCode,
      fullName,
      addressLine1: `${random.int(1, 400)} ${random.pick(STREETS)}`,
      addressLine2: random.chance(0.3) ? `Apt ${random.int(1, 60)}` : null,
      addressLine3: null,
      organization: title === 'Work' ? `${random.pick(LAST_NAMES)} & Co` : null,
      phone: random.chance(0.7) ? `+1 555 ${String(random.int(0, 9999999)).padStart(7, '0')}` : null,
    }
  })
}
