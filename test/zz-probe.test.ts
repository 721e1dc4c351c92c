import { test } from 'node:test'
import { buildTestApp, testDatabase } from './helpers/test-app.js'
const cpu = () => { const r = process.resourceUsage(); return (r.userCPUTime + r.systemCPUTime) / 1e6 }
test('probe', async () => {
  for (let i = 0; i < 4; i++) {
    const c0 = cpu(); const w0 = performance.now()
    const database = await testDatabase('postgres')
    const c1 = cpu(); const w1 = performance.now()
    const app = await buildTestApp({ dialect: 'postgres', database })
    const c2 = cpu(); const w2 = performance.now()
    await app.close(); await database.destroy()
    console.error('copy', (c1 - c0).toFixed(2), 's cpu', (w1 - w0).toFixed(0), 'ms; build', (c2 - c1).toFixed(2), (w2 - w1).toFixed(0), 'ms; close+destroy', (performance.now() - w2).toFixed(0), 'ms')
  }
})
