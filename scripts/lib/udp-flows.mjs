// Sends one UDP datagram to each of N distinct loopback destinations (127.0.0.x, ports 1..65535) from one socket:
// one conntrack entry each (UNREPLIED). `forever` keeps going until killed. Used by make-conntrack-fixtures.ts inside
// a network namespace; never sends anywhere but 127.0.0.0/8.
import dgram from 'node:dgram'

const forever = process.argv[2] === 'forever'
const n = forever ? Infinity : Number(process.argv[2])
const socket = dgram.createSocket('udp4')
await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve))
const payload = Buffer.from('x')
let sent = 0
for (let a = 1; sent < n; a++) {
  for (let port = 1; port <= 65535 && sent < n; port++, sent++) {
    await new Promise((resolve) => socket.send(payload, port, `127.0.0.${(a % 250) + 1}`, resolve))
  }
}
socket.close()
