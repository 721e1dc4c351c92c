// Where Gatehouse may send requests of its own (webhook deliveries, OAuth client metadata
// documents): http(s), no userinfo, and not a link-local or cloud-metadata address unless an
// operator allows private targets. Link-local addresses (where cloud metadata services answer:
// 169.254.169.254) and the other metadata endpoints hand out the host's cloud credentials.
import { BlockList, isIP } from 'node:net'

const PRIVATE_TARGETS = new BlockList()
PRIVATE_TARGETS.addSubnet('169.254.0.0', 16, 'ipv4')
PRIVATE_TARGETS.addSubnet('fe80::', 10, 'ipv6')
PRIVATE_TARGETS.addAddress('100.100.100.200', 'ipv4') // Alibaba Cloud metadata
PRIVATE_TARGETS.addAddress('fd00:ec2::254', 'ipv6') // AWS metadata over IPv6
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal'])

/** Whether a host name or address literal is a link-local or cloud-metadata target. */
export function isBlockedTarget(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  const family = isIP(host)
  return METADATA_HOSTS.has(host) || (family !== 0 && PRIVATE_TARGETS.check(host, family === 6 ? 'ipv6' : 'ipv4'))
}

/** What is wrong with `value` as an outbound target, or undefined when it may be used. */
export function outboundUrlProblem(value: string, allowPrivate: boolean): string | undefined {
  let u: URL
  try {
    u = new URL(value)
  } catch {
    return `expected an http(s) URL, got "${value}"`
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `expected an http(s) URL, got "${value}"`
  // Userinfo would be sent to the target and shown wherever the URL is; and `https://trusted@evil`
  // reads as one host while pointing at another.
  if (u.username !== '' || u.password !== '') return 'must not contain a user name or password (user:pass@host)'
  if (!allowPrivate && isBlockedTarget(u.hostname)) return `${u.hostname} is a link-local or cloud-metadata address`
  return undefined
}

// Addresses inside a site's own network: loopback, RFC 1918, carrier-grade NAT, unique-local
// IPv6, unspecified. A URL a stranger hands us (an OAuth client's metadata document) must not
// make Gatehouse reach into them unless an operator allows it.
const INTERNAL = new BlockList()
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) INTERNAL.addSubnet(net, bits, 'ipv4')
INTERNAL.addSubnet('fc00::', 7, 'ipv6')
INTERNAL.addAddress('::1', 'ipv6')
INTERNAL.addAddress('::', 'ipv6')

/** Whether a resolved address is internal, link-local or a metadata address (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  const ip = mapped ? mapped[1] : address
  const family = isIP(ip)
  if (family === 0) return true
  const type = family === 6 ? 'ipv6' : 'ipv4'
  return INTERNAL.check(ip, type) || PRIVATE_TARGETS.check(ip, type)
}
