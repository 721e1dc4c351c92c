// Client address allowlists (CIDR, IPv4 and IPv6), checked on every request.
import { BlockList, isIPv4, isIPv6 } from 'node:net'

export class IpAllowlist {
  private readonly list = new BlockList()

  constructor(readonly entries: readonly string[]) {
    for (const entry of entries) {
      const parsed = parseCidr(entry)
      if (!parsed) throw new Error(`invalid CIDR "${entry}"`)
      this.list.addSubnet(parsed.address, parsed.prefix, parsed.family)
    }
  }

  allows(address: string): boolean {
    const a = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address
    if (isIPv4(a)) return this.list.check(a, 'ipv4')
    if (isIPv6(a)) return this.list.check(a, 'ipv6')
    return false
  }
}

export function parseCidr(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, prefixText] = entry.trim().split('/')
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined
  if (!family) return undefined
  const max = family === 'ipv4' ? 32 : 128
  const prefix = prefixText === undefined ? max : Number(prefixText)
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) return undefined
  return { address, prefix, family }
}
